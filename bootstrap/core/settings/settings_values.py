"""Turning a raw setting value into its type: text from the environment or the command line, TOML
values from a file, JSON from the workspace's remembered settings.

A value that cannot be one of the setting's is a ConfigError (exit 2) naming the setting, where the
value came from and what it should be. Some values are checked by the module that owns their meaning
(a backend, a ccache remote URL, distcc hosts, an LLVM source), imported late: a bad value must stop
every command before anything is written, and those modules sit above core/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import ConfigError
from bootstrap.core.settings.distcc_hosts import parse_setting
from bootstrap.core.settings.values import check_backend, parse_llvm_setting, parse_remote_url

if TYPE_CHECKING:
    from bootstrap.core.settings.settings_table import Setting

_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n", ""}


def coerce(setting: Setting, raw: Any, where: str) -> Any:
    """Turn a raw value from a file, the environment or the command line into the setting's type.

    A file gives TOML values, which must already have the setting's type (`jobs = "4"` is as wrong as
    `jobs = [4]`); the environment and the command line give text (or the option's own type)."""
    if raw is None:
        return None
    try:
        if isinstance(raw, str) and any((ord(ch) < 32 and ch != "\t") or ord(ch) == 127 for ch in raw):
            raise ValueError("it contains a control character")
        if setting.kind is bool:
            return _as_bool(raw)
        if setting.kind is int:
            return _as_int(raw, setting.maximum)
        if not isinstance(raw, (str, os.PathLike)):
            raise ValueError(f"expected a string, not {toml_type(raw)}")
        if setting.kind is Path:
            return _as_path(setting, str(raw))
        return _as_text(setting, str(raw))
    except ValueError as exc:
        shown = repr(raw) if len(repr(raw)) <= 80 else repr(raw)[:77] + "..."
        raise ConfigError(
            f"invalid value {shown} for '{setting.name}' in {where}: {exc}",
            fix=f"set {setting.name} to a valid value ({setting.help})",
        ) from None


def toml_type(raw: object) -> str:
    names = {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "a table"}
    return next((name for kind, name in names.items() if isinstance(raw, kind)), type(raw).__name__)


def _as_bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if not isinstance(raw, str):
        raise ValueError(f"expected true or false, not {toml_type(raw)}")
    text = raw.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError("expected true or false")


def _as_int(raw: object, maximum: int) -> int:
    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        raise ValueError(f"expected a whole number, not {toml_type(raw)}")
    value = raw if isinstance(raw, int) else int(raw.strip())
    if value < 1:
        raise ValueError("must be 1 or more")
    if value > maximum:
        raise ValueError(f"must be at most {maximum}")
    return value


def _as_path(setting: Setting, text: str) -> Path:
    if not text.strip():
        raise ValueError("must not be empty")
    if "://" in text:
        # A URL given for a folder (a mirror on a server) would become a folder named after it, its
        # credentials out of the reach of masking: refused here, the message masked like every other.
        raise ValueError("expected a folder on this machine, not a URL")
    if setting.name == "python" and os.sep not in text:
        # A bare interpreter name (python3, python3.12) means the one on PATH, as in a shell.
        found = shutil.which(text)
        if found:
            return Path(found)
    return Path(os.path.expanduser(text)).absolute()


def _as_text(setting: Setting, raw: str) -> str:
    text = raw.strip()
    if setting.name == "backend":
        # A fork's backend (xpu, cpu) or another name for one gets its own message and fix.

        check_backend(text)
    if setting.choices:
        for choice in setting.choices:
            if text.lower() == choice.lower():
                return choice
        raise ValueError(f"expected one of {', '.join(setting.choices)}")
    if not text:
        raise ValueError("must not be empty")
    if setting.name == "ccache_remote":
        # Checked here, before any command creates or changes anything in the workspace.

        parse_remote_url(text)
    if setting.name == "distcc":
        # distcc's own host syntax, checked here too; ValueError says which host is wrong.

        return parse_setting(text)
    if setting.name in ("llvm", "llvm_prebuilt_url"):
        # Checked here too: a bad value must stop every command before anything is written.

        return parse_llvm_setting(setting.name, text)
    return text
