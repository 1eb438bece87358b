"""The variables `tritondev env` prints and `tritondev run` sets, and how each shell spells them.

Sources, later wins: the workspace env file (<workspace>/env.sh: what `doctor --fix` proved works,
e.g. TRITON_PTXAS_PATH, TRITON_CACHE_DIR), then the IR-dump switches with --dump-ir.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ConfigError, UsageError
from bootstrap.core.target.interpreter import PATH_PYTHON
from bootstrap.env.envfile import read_env_file
from bootstrap.env.triton_variables import dump_variables

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

SHELLS = ("bash", "zsh", "fish")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def detect_shell(environ: Mapping[str, str]) -> str:
    """The user's shell from $SHELL when it is one we can write for; bash otherwise."""
    name = os.path.basename(environ.get("SHELL", ""))
    return name if name in SHELLS else "bash"


def collect_variables(env_file: Path, *, dump_ir: bool, backend: str, kernel: str | None = None) -> dict[str, str]:
    """Everything to export, in a stable order."""
    try:
        values = read_env_file(env_file)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot read the workspace env file {env_file}: {exc}",
            fix="fix or remove that file; `tritondev doctor --fix` writes it again",
        ) from None
    if dump_ir:
        values.update(dump_variables(backend, kernel))
    return values


def path_with_first(folder: Path, path: str) -> str | None:
    """`path` (a PATH value) with `folder` in front, or None when the first python3 on it is there already."""
    for entry in path.split(os.pathsep):
        if entry and os.path.isfile(os.path.join(entry, "python3")):
            if os.path.realpath(entry) == os.path.realpath(folder):
                return None
            break
    return f"{folder}{os.pathsep}{path}" if path else str(folder)


def fish_quote(value: str) -> str:
    """A fish single-quoted string: only backslash and the quote itself are special there."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def render_exports(values: Mapping[str, str], shell: str) -> str:
    """One line per variable that `eval` in `shell` turns into an exported variable."""
    if shell not in SHELLS:
        raise UsageError(f"unknown shell '{shell}'", fix=f"use one of: {', '.join(SHELLS)}")
    lines = []
    for name, value in values.items():
        if not _NAME.match(name):
            raise ConfigError(f"'{name}' is not a valid environment variable name", fix="fix the workspace env file")
        if shell == "fish":
            lines.append(f"set -gx {name} {fish_quote(value)}")
        else:
            lines.append(f"export {name}={shlex.quote(value)}")
    return "".join(line + "\n" for line in lines)


def target_variables(ctx: AppContext) -> dict[str, str]:
    """PATH with the target environment's folder first, so that `python` there is the target's.

    Nothing when `python3` on PATH already is the target, when the target was found on PATH (the
    user's shell finds it as it is), or when there is none. A --python that is not an interpreter is
    an error (exit 2).
    """
    import os

    if ctx.settings.python is not None:
        executable = ctx.target_python().executable
    else:
        executable, origin = ctx.target_choice()
        if origin == PATH_PYTHON or not executable.exists():
            return {}
    path = path_with_first(executable.parent, os.environ.get("PATH", ""))
    return {} if path is None else {"PATH": path}


@dataclass(frozen=True)
class Exports:
    """What `tritondev env` prints: the export lines for `eval`, and where the env file would be."""

    text: str  # one line per variable; empty when there is nothing to export
    env_file: Path


def exports_for(ctx: AppContext, *, shell: str | None, dump_ir: bool, kernel: str | None) -> Exports:
    """The workspace env file's variables, the IR-dump switches with --dump-ir, and PATH with the
    target's folder first, written for `shell` (default: $SHELL's, else bash)."""
    if shell is not None and shell not in SHELLS:
        raise UsageError(f"unknown shell '{shell}'", fix=f"use --shell {' | '.join(SHELLS)}")
    values = collect_variables(ctx.workspace.env_file, dump_ir=dump_ir, backend=ctx.settings.backend, kernel=kernel)
    values.update(target_variables(ctx))
    return Exports(render_exports(values, shell or detect_shell(os.environ)), ctx.workspace.env_file)
