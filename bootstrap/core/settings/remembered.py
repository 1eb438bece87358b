"""How a workspace was set up: the settings a successful `tritondev setup` was given, read back as a layer.

Without it a plain `tritondev setup` (or `build`, `pins`, `doctor`) in an existing workspace forgets
the --mirror, --torch-ref, URLs or build type it was set up with, and goes back to PyTorch main over
the network. The file <workspace>/state/settings.json is written at the end of each successful
setup; load_settings reads it between the defaults and tritondev.toml, so the file, TRITONDEV_*
variables and options still win, and `config show` names it as the source ("workspace:<path>").

Remembered: what the user gave on the command line or in the environment (tritondev.toml stays
where it is). Never remembered: secrets (the ccache remote's password never goes to disk; a repository URL
given with a password or token is remembered without it), and the
choices of one run (jobs, --allow-dirty, --skip-verify). A new choice of the Triton commit (--torch-ref
or --triton-commit) or of where sources come from (--mirror or a URL) replaces the remembered one as
a whole, so that a remembered URL cannot outrank a --mirror given now.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import ConfigError
from bootstrap.core.fsutil import NotRegularFile, parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.io.writes import replace_json
from bootstrap.core.redact import without_credentials
from bootstrap.core.settings.settings_table import DEFAULT_SOURCE, SETTINGS, SettingSource, SourceKind

if TYPE_CHECKING:
    from bootstrap.core.settings.settings_table import Settings

NOT_REMEMBERED = ("workspace", "jobs", "link_jobs", "allow_dirty", "skip_verify")
# Settings that make one choice together: one of them given anew drops the remembered others.
CHOICES = (("torch_ref", "triton_commit", "triton_src"), ("mirror", "pytorch_url", "triton_url", "llvm_url"))
# Sources worth remembering (a file keeps its own values).
_GIVEN = (SourceKind.CLI, SourceKind.ENV, SourceKind.WORKSPACE)


_MAX_BYTES = 1 << 20  # the file holds a dozen short settings


def path_in(workspace: Path) -> Path:
    return StateFiles(Workspace(workspace).state).settings


def read(workspace: Path) -> tuple[dict[str, Any], SettingSource]:
    """The remembered settings ({} when there are none) and the source label of their values."""
    path = path_in(workspace)
    source = SettingSource.of(SourceKind.WORKSPACE, str(path))
    try:
        # Only a regular file, and only as much as such a file can be: a FIFO or /dev/zero put
        # there must not hang every command.
        raw = read_regular(path, limit=_MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return {}, source  # never set up here (or the workspace is not a folder: said elsewhere)
    except NotRegularFile:
        raise ConfigError(
            f"{path} is not a regular file", fix=f"remove {path}: the next successful `tritondev setup` writes it again"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}", fix=f"check the permissions of {path}") from None
    if len(raw) > _MAX_BYTES:
        raise ConfigError(
            f"{path} is larger than any settings file tritondev writes",
            fix=f"remove {path}: the next successful `tritondev setup` writes it again",
        )
    try:
        data = parse_json(raw.decode("utf-8"))
        settings = data["settings"]
        if not isinstance(settings, dict):
            raise TypeError("settings is not an object")
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{path} is damaged ({exc})",
            fix=f"remove {path}: the next successful `tritondev setup` writes it again",
        ) from None
    return {str(k): v for k, v in settings.items()}, source


def drop_replaced(values: MutableMapping[str, Any], sources: MutableMapping[str, SettingSource]) -> None:
    """Remembered values of a choice that a file, variable or option made anew are left out."""
    anew = (SourceKind.FILE, SourceKind.ENV, SourceKind.CLI)
    for choice in CHOICES:
        if any(sources.get(name, DEFAULT_SOURCE).kind in anew for name in choice):
            for name in choice:
                if sources.get(name, DEFAULT_SOURCE).kind is SourceKind.WORKSPACE:
                    del values[name], sources[name]


def to_remember(settings: Settings) -> dict[str, Any]:
    """What a setup run with `settings` leaves for the next one (see the module docstring)."""

    kept: dict[str, Any] = {}
    for setting in SETTINGS:
        value = getattr(settings, setting.name)
        if setting.name in NOT_REMEMBERED or setting.secret or not setting.in_file or value is None:
            continue
        if settings.source_of(setting.name).kind in _GIVEN:
            kept[setting.name] = str(value) if isinstance(value, Path) else value
            if isinstance(kept[setting.name], str):
                # A URL given with a password or token is remembered without it: the repository, not the key.
                kept[setting.name] = without_credentials(kept[setting.name])
    return kept


def remember(workspace: Path, settings: Settings) -> None:
    """Write what the next run starts from (atomically: a run cut short leaves the old file whole)."""

    document: Mapping[str, Any] = {
        "written_by": "tritondev setup, at the end of a successful run; read as defaults by every command",
        "settings": to_remember(settings),
    }
    replace_json(path_in(workspace), document)
