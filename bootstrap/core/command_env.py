"""What a command runs with, decided without starting it: the program's file, git's safe environment,
and what to install when a tool is missing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence

from bootstrap.core.errors import ToolMissing

# Transports git may use. `ext::` (runs arbitrary commands) and friends are absent on purpose.
GIT_ALLOWED_PROTOCOLS = "file:git:http:https:ssh"

# What to install when a tool is missing (Debian/Ubuntu names; the message says so).
INSTALL_HINTS: dict[str, str] = {
    "git": "apt-get install git",
    "cmake": "apt-get install cmake  (or: pip install 'cmake>=3.20')",
    "ninja": "apt-get install ninja-build  (or: pip install ninja)",
    "clang": "apt-get install clang",
    "clang++": "apt-get install clang",
    "ld.lld": "apt-get install lld",
    "ccache": "apt-get install ccache",
    "podman": "apt-get install podman",
    "docker": "install Docker Engine or podman",
    "buildah": "apt-get install buildah",
    "redis-server": "apt-get install redis-server",
}


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    """`base` without inherited GIT_* variables, plus the safety settings used for every git call."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env["GIT_ALLOW_PROTOCOL"] = GIT_ALLOWED_PROTOCOLS
    env["GIT_TERMINAL_PROMPT"] = "0"  # never hang on a password prompt
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    # No optional locks: a reading git command (status in doctor, in a dry run) never rewrites a
    # checkout's .git/index, nor collides with the user's own git running there.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def is_git(argv: Sequence[str]) -> bool:
    return os.path.basename(argv[0]) == "git"


def resolve_program(program: str, fix: str | None, path: str | None = None) -> str:
    """The program's file; `path`: the PATH the command runs with, where the caller changes it."""
    if os.sep in program:
        if os.path.isfile(program) and os.access(program, os.X_OK):
            return program
        raise ToolMissing(f"{program} does not exist or is not executable", fix=fix)
    found = shutil.which(program, path=path)
    if found is None:
        hint = fix or INSTALL_HINTS.get(program)
        raise ToolMissing(
            f"required tool '{program}' is not on PATH",
            fix=f"install it: {hint}" if hint else f"install {program}, or add the folder that holds it to PATH",
        )
    return found
