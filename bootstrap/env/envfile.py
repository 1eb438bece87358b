"""The workspace env file (<workspace>/env.sh): exports that `tritondev env` prints.

`tritondev doctor --fix` writes the variables it proved work (e.g. TRITON_PTXAS_PATH) here, and
`eval "$(tritondev env)"` brings them into the user's shell. Format: one `export NAME=value` line
per variable (value shell-quoted), comments allowed; written atomically.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path

from bootstrap.core.fsutil import atomic_write_text

_LINE = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
HEADER = "# Written by tritondev (doctor --fix and friends). Load with: eval \"$(tritondev env)\"\n"


def read_env_file(path: Path) -> dict[str, str]:
    """The variables in the env file, in order; {} when it does not exist."""
    values: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return values
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            parts = shlex.split(match.group(2)) or [""]
            values[match.group(1)] = parts[0]
    return values


def render_env_file(values: Mapping[str, str]) -> str:
    return HEADER + "".join(f"export {name}={shlex.quote(value)}\n" for name, value in values.items())


def update_env_file(path: Path, updates: Mapping[str, str | None]) -> dict[str, str]:
    """Set (value) or remove (None) variables in the env file; returns the new contents."""
    values = read_env_file(path)
    for name, value in updates.items():
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
    atomic_write_text(path, render_env_file(values))
    return values
