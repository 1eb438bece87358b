"""Reading the workspace's settings file: tritondev.toml, else [tool.tritondev] in pyproject.toml.

The file is outside input. Whatever is there under either name is read or refused with a clear
ConfigError (exit 2): a dangling or looping link, a FIFO or a folder, a file that is not UTF-8, not
TOML, nested too deeply for the parser, larger than any settings file, or a settings table that is
not a table. Nothing is silently skipped: settings the user wrote must either apply or be an error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from bootstrap.core.errors import ConfigError
from bootstrap.core.fsutil import read_regular
from bootstrap.core.settings.settings_table import CONFIG_FILE
from bootstrap.core.settings.settings_values import toml_type

# tritondev.toml is a few lines; anything this large is not one.
MAX_FILE_BYTES = 1 << 20


def _load_toml(path: Path) -> dict[str, Any]:
    """The TOML document at `path`; a ConfigError naming the problem for anything that is not one."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    fix = f"fix {path} (see README, Settings), or move it away"
    try:
        raw = read_regular(path, limit=MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", fix=fix) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_FILE_BYTES // 1024} KiB: not a settings file", fix=fix)
    try:
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte {exc.start}): TOML files are UTF-8", fix=fix) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", fix=fix) from None
    except RecursionError:
        raise ConfigError(f"{path} nests arrays or tables too deeply to be a settings file", fix=fix) from None
    return data


def read_workspace_file(workspace: Path) -> tuple[dict[str, Any], Path | None]:
    """The settings table of the workspace: tritondev.toml, else pyproject.toml [tool.tritondev].

    A file by either name that is there but cannot be read (a dangling or looping link, a FIFO, a
    folder) is an error, never silently skipped: the user wrote settings that would not apply."""
    toml_path = workspace / CONFIG_FILE
    if os.path.lexists(toml_path):
        data = _load_toml(toml_path)
        # Accept both a flat file and one with a [tritondev] table.
        table = data.get("tritondev", data) if set(data) == {"tritondev"} else data
        if not isinstance(table, dict):
            raise ConfigError(
                f"{toml_path}: [tritondev] must be a table of key = value pairs", fix="see README, Settings"
            )
        return dict(table), toml_path
    pyproject = workspace / "pyproject.toml"
    if os.path.lexists(pyproject):
        data = _load_toml(pyproject)
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "tritondev" not in tool:
            return {}, None
        table = tool["tritondev"]
        if not isinstance(table, dict):
            raise ConfigError(
                f"{pyproject}: tool.tritondev must be a table ([tool.tritondev]), not {toml_type(table)}",
                fix="write the settings under a [tool.tritondev] header",
            )
        return dict(table), pyproject
    return {}, None
