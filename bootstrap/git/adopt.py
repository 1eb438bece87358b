"""Your own Triton clone, adopted with `--triton-src PATH`: read, never moved.

tritondev builds an adopted clone as it stands and never changes what git keeps there: HEAD, the
branch, the remotes, the index and the working tree. Everything here reads, and every git call is
`git --no-optional-locks` (a plain `git status` would refresh the index file); as every git command,
it runs no hook, fsmonitor or filter driver of the clone's (the runner's git hardening). Nothing is
fetched into the clone.

What is read: HEAD and its branch, the branch's upstream and how far it is ahead and behind, the
remotes' names, what git is in the middle of (a merge with its conflicts, a rebase, a `git bisect`),
the uncommitted files (as `git status` names them), and the files of the working tree (the LLVM pin
and the layout are read from there, local edits included).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ConfigError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.process.runner import Runner
from bootstrap.git.local_changes import operation_in_progress, parse_porcelain_z, unmerged_z

STEP = "adopt"
# What makes a folder a Triton checkout: a setup.py (at the root from 3.4, in python/ before) and
# an LLVM pin file (cmake/llvm-hash.txt up to 3.7, cmake/llvm-info.json from 3.8).
SETUP_PY = ("setup.py", "python/setup.py")
PIN_FILES = ("cmake/llvm-info.json", "cmake/llvm-hash.txt")
_READ_LIMIT = 1 << 24
_SHOWN = 5


@dataclass(frozen=True)
class Clone:
    root: Path
    head: str  # 40 hex
    branch: str | None  # None: a detached HEAD
    upstream: str | None  # what HEAD is compared with: the branch's upstream, else origin's default (origin/HEAD)
    ahead_behind: tuple[int, int] | None  # commits HEAD has that upstream lacks, and the reverse
    remotes: tuple[str, ...]
    changes: tuple[str, ...]  # modified, staged or untracked (not ignored) files
    operation: str | None = None  # what git is in the middle of: a merge, a rebase, a bisect, ...
    conflicts: tuple[str, ...] = ()  # files with unresolved conflicts (also in changes)

    def describe(self) -> str:
        """One line: where HEAD is, what git is in the middle of, and what is not committed."""
        where = f"branch {self.branch}" if self.branch else f"detached HEAD {self.head[:12]}"
        if self.upstream and self.ahead_behind is not None:
            ahead, behind = self.ahead_behind
            where += f" ({ahead} ahead, {behind} behind {self.upstream})"
        if self.operation:
            where += f", {self.operation}"
        if self.conflicts:
            where += f", {len(self.conflicts)} file(s) with conflicts: {_names(self.conflicts)}"
        rest = tuple(name for name in self.changes if name not in self.conflicts)
        if not rest:
            return where if self.conflicts else f"{where}, nothing uncommitted"
        return f"{where}, {len(rest)} {'other ' if self.conflicts else ''}uncommitted file(s): {_names(rest)}"

    def to_json(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "head": self.head,
            "branch": self.branch,
            "upstream": self.upstream,
            "ahead_behind": list(self.ahead_behind) if self.ahead_behind else None,
            "remotes": list(self.remotes),
            "changes": list(self.changes),
            "operation": self.operation,
            "conflicts": list(self.conflicts),
            "summary": self.describe(),
        }


def _names(files: tuple[str, ...]) -> str:
    return ", ".join(files[:_SHOWN]) + (f" and {len(files) - _SHOWN} more" if len(files) > _SHOWN else "")


def read_git(runner: Runner, root: Path, *args: str, check: bool = False) -> str:
    """A git read in the clone that writes nothing there (no index refresh)."""
    argv = ["git", "--no-optional-locks", "-C", str(root), *args]
    result = runner.capture(argv, step=STEP, check=check)
    return result.stdout if result.returncode == 0 else ""


def looks_like_triton(root: Path) -> bool:
    """A setup.py where Triton keeps it and an LLVM pin file: the files only a Triton checkout has."""
    return any((root / p).is_file() for p in SETUP_PY) and any((root / p).is_file() for p in PIN_FILES)


def toplevel(start: Path, runner: Runner) -> Path | None:
    """The root of the git working tree holding `start`, or None."""
    text = read_git(runner, start, "rev-parse", "--show-toplevel").strip()
    return Path(text) if text else None


def triton_checkout_around(start: Path, runner: Runner) -> Path | None:
    """The Triton checkout `start` is inside (for "run inside your clone and setup offers it")."""
    if not start.is_dir():
        return None
    root = toplevel(start, runner)
    return root if root is not None and looks_like_triton(root) else None


def check_clone(path: Path, runner: Runner) -> Path:
    """The root of the clone at `path`; ConfigError (exit 2) when it is not a Triton checkout."""
    fix = (
        "give the folder of your Triton clone (the one holding setup.py or python/setup.py), e.g. --triton-src ~/triton"
    )
    if not path.is_dir():
        raise ConfigError(f"--triton-src {path}: no such folder", fix=fix)
    root = toplevel(path, runner)
    if root is None:
        raise ConfigError(f"--triton-src {path} is not a git checkout", fix=fix)
    if root.resolve() != path.resolve():
        raise ConfigError(
            f"--triton-src {path} is inside the checkout {root}, not its root", fix=f"--triton-src {root}"
        )
    if not looks_like_triton(root):
        raise ConfigError(
            f"--triton-src {path} is not a Triton checkout (no setup.py with cmake/llvm-hash.txt or"
            " cmake/llvm-info.json)",
            fix=fix,
        )
    if not read_git(runner, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip():
        raise ConfigError(f"--triton-src {path} has no commit yet", fix="commit something first, then run again")
    return root


def inspect_clone(root: Path, runner: Runner) -> Clone:
    """Where the clone stands; reads only."""
    head = read_git(runner, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip()
    branch = read_git(runner, root, "symbolic-ref", "-q", "--short", "HEAD").strip() or None
    upstream = None
    ahead_behind = None
    if branch is not None:
        upstream = read_git(runner, root, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}").strip()
        # A branch made with `git switch -c` has no upstream: origin's default branch says as much.
        upstream = (
            upstream
            or read_git(runner, root, "rev-parse", "--abbrev-ref", "--verify", "--quiet", "origin/HEAD").strip()
            or None
        )
        if upstream is not None:
            ahead_behind = parse_left_right(
                read_git(runner, root, "rev-list", "--left-right", "--count", f"HEAD...{upstream}")
            )
    remotes = tuple(read_git(runner, root, "remote").split())
    status = read_git(
        runner, root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none", check=True
    )
    return Clone(
        root,
        head,
        branch,
        upstream,
        ahead_behind,
        remotes,
        parse_porcelain_z(status),
        operation_in_progress(root, runner, STEP),
        unmerged_z(status),
    )


def parse_left_right(text: str) -> tuple[int, int] | None:
    """`git rev-list --left-right --count A...B`: (commits only in A, commits only in B)."""
    words = text.split()
    if len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    return int(words[0]), int(words[1])


def working_tree_reader(root: Path) -> Callable[[str], str | None]:
    """Files of the working tree as they are now (regular files only, bounded), None when absent."""

    def read(path: str) -> str | None:
        target = root / path
        if ".." in Path(path).parts:
            return None
        try:
            return read_regular_text(target, limit=_READ_LIMIT)
        except OSError:
            return None

    return read
