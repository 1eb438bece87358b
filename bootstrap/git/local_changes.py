"""A checkout's local changes (modified, staged, untracked), found read-only and as fast as git can.

`git status` over llvm-project (about 169,000 files in 15,800 folders) lstat()s every tracked file
and, to find untracked files, reads every folder. What git itself offers keeps that fast without
looking at less:

- The untracked cache (core.untrackedCache): a folder whose stat data has not changed since the
  index was written is not read again. `prime` writes it after tritondev itself changed a checkout
  (a clone, a move to a new pin, its own lines in .git/info/exclude); the check never writes
  (`--no-optional-locks`), so not even the index of a checkout with local work changes. The cache
  holds one way of listing untracked files, so the check uses the user's own (status.showUntrackedFiles
  `all`, else `normal`): the user's `git status` and tritondev keep the same cache fresh.
- In the `normal` way an untracked folder is listed whole (`dir/`); only those folders are then
  listed file by file (`git ls-files --others --exclude-standard`), a walk bounded by where the
  local work is. Every untracked file is named, as with `--untracked-files=all`.

No fsmonitor, hook or filter driver runs (the runner's one git hardening, bootstrap.core.process.command_env):
looking at a checkout must not run its programs, nor those of a config it includes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.process.runner import Runner

# More untracked folders than this are listed by one walk of the whole tree instead of by name.
MAX_FOLDERS_BY_NAME = 200
_CONFIG_KEYS = r"^status\.showuntrackedfiles$"


UntrackedMode = Literal["all", "normal"]


@dataclass(frozen=True)
class StatusConfig:
    """What a checkout's git config says about finding its changes."""

    untracked: UntrackedMode = "normal"  # how the user's git status lists untracked files


def parse_config_z(output: str) -> StatusConfig:
    """`git config --show-scope -z --get-regexp` of status.showUntrackedFiles -> StatusConfig (the last
    value wins). Each record is `scope NUL key LF value NUL`; anything else is skipped."""
    untracked = ""
    fields = output.split("\0")
    for _scope, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        if key.lower() == "status.showuntrackedfiles":
            untracked = value.strip().lower()
    return StatusConfig("all" if untracked == "all" else "normal")


def read_config(dest: Path, runner: Runner, step: str) -> StatusConfig:
    result = runner.capture(
        ["git", "-C", str(dest), "config", "--show-scope", "-z", "--get-regexp", _CONFIG_KEYS], step=step, check=False
    )
    return parse_config_z(result.stdout) if result.returncode == 0 else StatusConfig()


def _status_argv(dest: Path, config: StatusConfig, *, write: bool) -> list[str]:
    options = ["-c", "core.untrackedCache=true"] if write else ["--no-optional-locks"]
    return [
        "git",
        *options,
        "-C",
        str(dest),
        "status",
        "--porcelain=v1",
        "-z",
        f"--untracked-files={config.untracked}",
        "--ignore-submodules=none",
    ]


def parse_porcelain_z(output: str) -> tuple[str, ...]:
    """File names from `git status --porcelain=v1 -z` (renames give both names)."""
    names: list[str] = []
    entries = output.split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        status, name = entry[:2], entry[3:]
        names.append(name)
        if "R" in status or "C" in status:
            if i < len(entries) and entries[i]:
                names.append(entries[i])
            i += 1
    return tuple(dict.fromkeys(names))


# `git status --porcelain` codes of a path with a conflict (both sides changed it).
UNMERGED = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})


def unmerged_z(output: str) -> tuple[str, ...]:
    """The paths with conflicts in `git status --porcelain=v1 -z` output."""
    return tuple(entry[3:] for entry in output.split("\0") if len(entry) > 3 and entry[:2] in UNMERGED)


def operation_in_progress(dest: Path, runner: Runner, step: str) -> str | None:
    """What git is in the middle of in the checkout `dest` (a merge, a rebase, a cherry-pick, a revert, a
    `git am`, a `git bisect`), as `git status` would say it, with how to end it; None when nothing. Reads
    only: the state files git keeps in the checkout's own git folder (a worktree's, for a worktree)."""
    said = runner.capture(["git", "-C", str(dest), "rev-parse", "--absolute-git-dir"], step=step, check=False)
    return describe_operation(Path(said.stdout.strip())) if said.returncode == 0 and said.stdout.strip() else None


def describe_operation(git_dir: Path) -> str | None:
    def text(name: str) -> str:
        try:
            return read_regular_text(git_dir / name, limit=4096).strip()
        except (OSError, UnicodeDecodeError):
            return ""

    for folder in ("rebase-merge", "rebase-apply"):
        if not (git_dir / folder).is_dir():
            continue
        if (git_dir / folder / "applying").exists():
            return "a `git am` in progress (git am --continue, --skip or --abort)"
        head = text(f"{folder}/head-name").removeprefix("refs/heads/")
        what = f"a rebase of {head}" if head and head != "detached HEAD" else "a rebase"
        onto = text(f"{folder}/onto")
        return f"{what}{f' onto {onto[:12]}' if onto else ''} in progress (git rebase --continue, --skip or --abort)"
    for name, what, ends in (
        ("MERGE_HEAD", "a merge", "git merge --continue or --abort"),
        ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"),
        ("REVERT_HEAD", "a revert", "git revert --continue or --abort"),
    ):
        if (git_dir / name).is_file():
            commit = text(name).split()[:1]
            return f"{what}{f' of {commit[0][:12]}' if commit else ''} in progress ({ends})"
    if (git_dir / "BISECT_LOG").is_file():
        return "a `git bisect` in progress (git bisect reset ends it)"
    return None


def local_changes(dest: Path, runner: Runner, step: str) -> tuple[str, ...]:
    """Modified, staged and untracked (not ignored) files of `dest`, as `git status --untracked-files=all`
    names them; reads only."""
    config = read_config(dest, runner, step)
    names = parse_porcelain_z(runner.capture(_status_argv(dest, config, write=False), step=step).stdout)
    folders = [name for name in names if name.endswith("/")]
    if not folders:
        return names
    return _with_folders_listed(dest, names, folders, config, runner, step)


def _with_folders_listed(
    dest: Path, names: tuple[str, ...], folders: list[str], config: StatusConfig, runner: Runner, step: str
) -> tuple[str, ...]:
    """Untracked folders (`dir/`) replaced by the untracked files in them."""
    pathspecs = [f":(literal){folder}" for folder in folders] if len(folders) <= MAX_FOLDERS_BY_NAME else []
    out = runner.capture(
        [
            "git",
            "--no-optional-locks",
            "-C",
            str(dest),
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--",
            *pathspecs,
        ],
        step=step,
    ).stdout
    files = [f for f in out.split("\0") if f]
    listed: list[str] = []
    for name in names:
        if name.endswith("/"):
            inside = [f for f in files if f.startswith(name)]
            listed.extend(inside or [name])
        else:
            listed.append(name)
    return tuple(dict.fromkeys(listed))


def prime(dest: Path, runner: Runner, step: str) -> None:
    """Write the untracked cache (and fresh stat data) into `dest`'s index, for the checks that follow.

    Only after tritondev itself changed the checkout; a failure (another git holds the index) only
    means the next check reads every folder."""
    config = read_config(dest, runner, step)
    # The one git call that may take the index's optional lock: every other one runs without it
    # (the runner's git environment), so that reading never writes.
    runner.run(_status_argv(dest, config, write=True), step=step, check=False, env={"GIT_OPTIONAL_LOCKS": "1"})


def unsaved_changes(dest: Path, relative: str, runner: Runner, step: str) -> bool | None:
    """Does the file `relative` of the checkout differ from what git has of it (unstaged changes, or
    untracked)? A staged change is kept by the index and is not one. None: git could not say."""
    result = runner.capture(
        [
            "git",
            "--no-optional-locks",
            "-c",
            "core.fsmonitor=false",
            "-C",
            str(dest),
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            relative,
        ],
        step=step,
        check=False,
    )
    if result.returncode != 0:
        return None
    entries = [entry for entry in result.stdout.split("\0") if len(entry) > 3]
    return any(entry.startswith("??") or entry[1] != " " for entry in entries)
