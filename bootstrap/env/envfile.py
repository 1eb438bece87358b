"""The workspace env file (<workspace>/env.sh): exports that `tritondev env` prints.

`tritondev doctor --fix` writes the variables it proved work (e.g. TRITON_PTXAS_PATH) here, and
`eval "$(tritondev env)"` brings them into the user's shell. Format: one `export NAME=value` line
per variable (value shell-quoted), comments allowed; written atomically.

The file is the user's too (it is a shell file, and they may edit it), so it is outside input:
- reading takes a regular file only (a FIFO never makes a command hang), UTF-8, and each
  `export` value is read as the shell reads it (`$HOME/dir` expanded: shellword.py); what the shell
  could read differently (`$(...)`, `${X:-y}`, an unclosed quote) is a ConfigError (exit 2) naming
  the line, and nothing is written;
- writing changes only the `export` lines of the variables it sets or removes: every other line
  (comments, the user's own commands, blank lines) stays as it was, in its place.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path

from bootstrap.core.errors import ConfigError
from bootstrap.core.fsutil import read_regular
from bootstrap.core.io.writes import replace_text
from bootstrap.env.shellword import UnsupportedWord, expand_word

_LINE = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
HEADER = '# Written by tritondev (doctor --fix and friends). Load with: eval "$(tritondev env)"\n'
_MAX_BYTES = 1 << 20  # an env file is a few lines


def _bad(path: Path, problem: str) -> ConfigError:
    return ConfigError(
        f"the workspace env file {path} {problem}",
        fix=f"fix or remove {path} (it holds `export NAME='value'` lines); `tritondev doctor --fix` writes it again",
    )


def _lines(path: Path) -> list[str] | None:
    """The file's lines; None when it does not exist; ConfigError when it cannot be one."""
    try:
        raw = read_regular(path, limit=_MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _bad(path, f"cannot be read: {exc.strerror or exc}") from None
    if len(raw) > _MAX_BYTES:
        raise _bad(path, f"is larger than {_MAX_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad(path, f"is not UTF-8 text (byte {exc.start})") from None
    if "\0" in text:
        raise _bad(path, "holds a NUL byte")
    return text.splitlines()


def _value(path: Path, number: int, raw: str, environ: Mapping[str, str]) -> str:
    """The value of `export NAME=<raw>` as the shell reads it (its first word, `$NAME` and `~/` expanded;
    a comment may follow); exit 2 naming the line for what tritondev will not evaluate (shellword.py)."""
    try:
        return expand_word(raw.strip(), environ)
    except UnsupportedWord as exc:
        raise _bad(
            path,
            f"has a line {number} tritondev does not read as the shell would ({exc}): {raw[:80]!r}"
            if "quote is not closed" not in str(exc)
            else f"has a malformed line {number} ({exc}): {raw[:80]!r}",
        ) from None


def read_env_file(path: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables in the env file, in order, as `. env.sh` in a shell with `environ` (default: this
    process's environment) sets them; {} when it does not exist."""
    values: dict[str, str] = {}
    seen = dict(os.environ if environ is None else environ)
    for number, line in enumerate(_lines(path) or [], start=1):
        match = _LINE.match(line)
        if match:
            values[match.group(1)] = seen[match.group(1)] = _value(path, number, match.group(2), seen)
    return values


def render_env_file(values: Mapping[str, str]) -> str:
    return HEADER + "".join(_export(name, value) for name, value in values.items())


def _export(name: str, value: str) -> str:
    return f"export {name}={shlex.quote(value)}\n"


def update_env_file(path: Path, updates: Mapping[str, str | None]) -> dict[str, str]:
    """Set (value) or remove (None) variables in the env file; returns the variables it now holds.

    Only the `export` lines of the updated names change; every other line is kept as it was."""
    for key, new in updates.items():
        if not _NAME.match(key) or (new is not None and any(ord(ch) < 32 for ch in new)):
            raise ConfigError(
                f"cannot write {key}={new!r} to {path}: one line per variable, no control characters",
                fix="report this value; set the variable in your shell instead",
            )
    values = read_env_file(path)  # refuses a malformed file before anything is written
    lines = _lines(path)
    if lines is None:
        replace_text(path, render_env_file({k: v for k, v in updates.items() if v is not None}))
        return read_env_file(path)
    kept: list[str] = []
    placed: set[str] = set()
    for line in lines:
        match = _LINE.match(line)
        name = match.group(1) if match else None
        if name is None or name not in updates:
            kept.append(line + "\n")
            continue
        value = updates[name]
        if value is not None and name not in placed:
            kept.append(_export(name, value))
            placed.add(name)
    kept += [_export(n, v) for n, v in updates.items() if v is not None and n not in placed]
    replace_text(path, "".join(kept), verbatim=True)
    for key, new in updates.items():
        if new is None:
            values.pop(key, None)
        else:
            values[key] = new
    return values
