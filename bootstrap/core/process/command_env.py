"""What a command runs with, decided without starting it: the program's file, git's safe environment,
and what to install when a tool is missing.

Every git command tritondev runs (in your clone, its worktrees, the checkouts it made; reading or
writing) gets one hardening, `git_hardening`, whatever the repository's own config or your global
config say: no hook runs (`core.hooksPath=/dev/null`), no fsmonitor (`core.fsmonitor=false`), and no
filter driver (each `filter.<name>` found in the config git reads there gets empty clean, smudge and
process commands and `required=false`, so git copies the bytes as they are). The settings are given
as git's command-scope config (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n, git >= 2.31),
which outranks every config file and, unlike `-c`, takes any name. Attributes alone cannot do it: the
repository's .gitattributes and .git/info/attributes outrank `core.attributesFile`, so the drivers the
attributes name are disabled instead.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence

from bootstrap.core.errors import ConfigError, ToolMissing

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


# git's options that take the next word as their value (before the subcommand).
_GIT_OPTIONS_WITH_VALUE = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--exec-path",
        "--config-env",
        "--super-prefix",
        "--list-cmds",
        "--attr-source",
    }
)
# What lists the filter drivers the config of a repository defines (`filter.<name>.<key>`, NUL-separated).
FILTER_LISTING = ("config", "-z", "--name-only", "--get-regexp", r"^filter\.")


def git_global_options(argv: Sequence[str]) -> tuple[str, ...]:
    """The options of a git command line before its subcommand (`-C DIR`, `-c K=V`, `--git-dir=X`): where
    the command runs, which the listing of its filter drivers must share."""
    options: list[str] = []
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        options.append(argv[i])
        if argv[i] in _GIT_OPTIONS_WITH_VALUE and i + 1 < len(argv):
            options.append(argv[i + 1])
            i += 1
        i += 1
    return tuple(options)


def filter_drivers(listing: str) -> tuple[str, ...]:
    """The driver names `git config -z --name-only --get-regexp '^filter[.]'` lists (a name may hold dots)."""
    names = []
    for key in listing.split("\0"):
        head, dot, _ = key.rpartition(".")
        if dot and head.lower().startswith("filter.") and len(head) > len("filter."):
            names.append(head[len("filter.") :])
    return tuple(dict.fromkeys(names))


def git_hardening(drivers: Sequence[str]) -> list[tuple[str, str]]:
    """The config every git command runs with: no hooks, no fsmonitor, none of `drivers` (filters)."""
    pairs = [("core.hooksPath", os.devnull), ("core.fsmonitor", "false")]
    for name in drivers:
        pairs += [
            (f"filter.{name}.clean", ""),
            (f"filter.{name}.smudge", ""),
            (f"filter.{name}.process", ""),
            (f"filter.{name}.required", "false"),
        ]
    return pairs


def hardened(env: Mapping[str, str], drivers: Sequence[str]) -> dict[str, str]:
    """`env` for a git command in a repository whose config defines the filter `drivers`: the hardening last."""
    return with_git_config(env, git_hardening(drivers))


def driver_listing(argv: Sequence[str], *, global_only: bool = False) -> list[str]:
    """The git command that lists the filter drivers where `argv` runs (or in the user's config only)."""
    if global_only:
        return [argv[0], FILTER_LISTING[0], "--global", *FILTER_LISTING[1:]]
    return [argv[0], *git_global_options(argv), *FILTER_LISTING]


def with_git_config(env: Mapping[str, str], pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """`env` with `pairs` added after the command-scope config it already sets (a caller's URL rewrite):
    the later setting of a key wins, so these do."""
    out = dict(env)
    try:
        count = max(0, int(out.get("GIT_CONFIG_COUNT", "0")))
    except ValueError:
        count = 0
    for key, value in pairs:
        out[f"GIT_CONFIG_KEY_{count}"], out[f"GIT_CONFIG_VALUE_{count}"] = key, value
        count += 1
    out["GIT_CONFIG_COUNT"] = str(count)
    return out


# git's refusal to work in a repository another user owns (its safe.directory check, git >= 2.35.2).
_DUBIOUS = re.compile(r"detected dubious ownership in repository at '(?P<path>.*)'\s*$", re.MULTILINE)


def refuse_unsafe_repository(output: str) -> None:
    """A git command's output that is git's safe.directory refusal: ConfigError (exit 2) saying what git
    said and the line that lets git work there. Never read as an answer ("not a git checkout", "no
    commit"): the repository is there, git will not look at it."""
    found = _DUBIOUS.search(output)
    if found is None:
        return
    path = found["path"]
    raise ConfigError(
        f"git refuses to work in {path}: it belongs to another user (git said: detected dubious ownership in"
        f" repository at '{path}')",
        fix=f"if you trust that repository: git config --global --add safe.directory {shlex.quote(path)}",
    )


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


def environment(
    args: Sequence[str],
    base: Mapping[str, str],
    layers: Sequence[Mapping[str, str | None]],
    *,
    harden: bool,
    drivers: Callable[[dict[str, str]], tuple[str, ...]],
) -> dict[str, str]:
    """The environment `args` runs with: `base` with each layer applied in turn (None removes a variable).
    A git command tritondev runs (`harden`) gets git's environment first and its hardening last, so that
    nothing a caller sets undoes it; `drivers(env)` lists the filter drivers to turn off there. A user's
    own command (`tritondev run -- git commit`) runs as the user would run it: their hooks and filters
    are theirs to keep."""
    tritondevs_git = harden and is_git(args)
    env = git_environment(base) if tritondevs_git else dict(base)
    for layer in layers:
        for key, value in layer.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
    return hardened(env, drivers(env)) if tritondevs_git else env
