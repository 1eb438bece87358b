"""Looking at a checkout and moving it, never over local work: the one guarded move of every command.

`inspect_checkout` reads a checkout's state (HEAD, modified/staged/untracked files, local commits)
with `git --no-optional-locks status`, writing nothing. `guarded_move` is how setup, bisect and
bisect's restore move a checkout to another commit: it refuses (exit 6, naming the files) over
modified, staged or untracked files and over ignored files at paths the new commit tracks, which
`git checkout` would replace without a word. `refuse_ignored_in_range` makes the same check for a
whole series of commits before a bisect starts, so that it refuses with nothing changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bootstrap.core.errors import DirtyCheckout, WouldLoseData
from bootstrap.core.process.runner import Runner
from bootstrap.git.history import checked_out_commit
from bootstrap.git.local_changes import local_changes, operation_in_progress
from bootstrap.git.refs import PIN_REF_PREFIX

# Where each pinned commit is remembered inside a checkout, so that an earlier pin (often on a
# release branch we never fetched as a branch) is not mistaken for a local commit.
# In <dest>.partial while a new clone is assembled there: only a folder holding it (or an empty one)
# is ever deleted as the leftover of an interrupted clone. A clone renamed into place keeps it until
# the last moment, so it is ours, never the user's local work.
PARTIAL_MARK = ".tritondev-partial-clone"
_SHOWN_NAMES = 20


def git_out(runner: Runner, repo: Path, *args: str, step: str, probe: bool, check: bool = True) -> str:
    start = runner.capture if probe else runner.run
    result = start(["git", "-C", str(repo), *args], step=step, check=check, timeout=3600)
    return result.stdout if result.returncode == 0 else ""


def inspect_checkout(
    dest: Path, commit: str, runner: Runner, step: str
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(HEAD, dirty files, local commits) of an existing checkout; reads only, writes nothing."""
    head = checked_out_commit(dest, runner, step)
    dirty = tuple(name for name in local_changes(dest, runner, step) if name != PARTIAL_MARK)
    local: tuple[str, ...] = ()
    if head:
        exclude = ["--remotes", "--tags", f"--glob={PIN_REF_PREFIX}*"]
        if has_commit(dest, commit, runner, step):
            exclude.append(commit)
        out = git_out(runner, dest, "rev-list", "--max-count=50", head, "--not", *exclude, step=step, probe=True)
        local = tuple(line for line in out.split() if line)
    return head, dirty, local


def has_commit(repo: Path, commit: str, runner: Runner, step: str) -> bool:
    result = runner.capture(["git", "-C", str(repo), "cat-file", "-e", f"{commit}^{{commit}}"], step=step, check=False)
    return result.returncode == 0


def shown_names(files: tuple[str, ...]) -> str:
    shown = ", ".join(files[:_SHOWN_NAMES])
    return shown + (f" and {len(files) - _SHOWN_NAMES} more" if len(files) > _SHOWN_NAMES else "")


def guarded_move(
    name: str,
    dest: Path,
    commit: str,
    runner: Runner,
    step: str,
    branch: str | None = None,
    *,
    create_branch: bool = False,
    env: Mapping[str, str] | None = None,
) -> None:
    """The one way any command moves a checkout to another commit (or onto `branch` where it points
    there): never over local work. Modified, staged or untracked files stop it (DirtyCheckout, exit 6),
    and so do ignored files at paths the commit tracks, which `git checkout` would silently replace
    (WouldLoseData, exit 6); both name the files and nothing is changed. Nothing happens when the
    checkout is already there. With `create_branch`, a `branch` that does not exist yet is made at `commit`;
    one that points elsewhere (work of the user's) is left alone and the checkout is detached. `env`: what
    the checkout runs with (a partial clone may fetch blobs through its remote's credentials)."""
    head = checked_out_commit(dest, runner, step)
    on = git_out(runner, dest, "symbolic-ref", "-q", "--short", "HEAD", step=step, probe=True, check=False).strip()
    if head == commit and (on or None) == branch:
        return
    target = ["--detach", commit]
    if branch is not None:
        tip = git_out(
            runner, dest, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", step=step, probe=True, check=False
        ).strip()
        # `<branch> --`: a ref, never a path (git 2.39's checkout takes no --end-of-options before it).
        if tip == commit:
            target = [branch, "--"]
        elif not tip and create_branch:
            target = ["-b", branch, commit]
    if not runner.dry_run:
        _, dirty, _ = inspect_checkout(dest, commit, runner, step)
        operation = operation_in_progress(dest, runner, step)
        if operation:  # the user's own git session (a stopped rebase holds their commits): never moved under it
            changes = f" and local changes ({shown_names(dirty)})" if dirty else ""
            raise DirtyCheckout(
                f"{name} checkout {dest} has {operation}{changes}; moving it to {commit[:12]} would break that, so"
                " nothing was changed",
                fix=f"finish or abort it in {dest}, then run again",
            )
        if dirty:
            raise DirtyCheckout(
                f"{name} checkout {dest} has local changes ({shown_names(dirty)}); moving it to {commit[:12]} could"
                " lose them, so nothing was changed",
                fix="commit them, or move them away yourself (git stash -u), then run again",
            )
        refuse_overwriting_ignored(name, dest, commit, runner, step)
    runner.run(
        ["git", "-C", str(dest), "-c", "advice.detachedHead=false", "checkout", "--quiet", *target],
        step=step,
        env=dict(env or {}),
        timeout=6 * 3600,
        fix=f"the checkout must be clean; `git -C {dest} status` says what is in the way",
        # Cut halfway, a checkout leaves HEAD at one commit and files of the other, which no later move
        # puts back (HEAD is already "there"): a Ctrl-C is raised once it ended.
        whole=True,
    )


def refuse_ignored_in_range(name: str, dest: Path, repo: Path, commits: list[str], runner: Runner, step: str) -> None:
    """Before a series of moves (a bisect over `commits`, whose objects `repo` holds): stop with exit 6,
    naming them, when ignored files of `dest` lie at paths any of those commits tracks."""
    ignored = [
        p
        for p in git_out(
            runner, dest, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", step=step, probe=True
        ).split("\0")
        if p
    ]
    if not ignored or not commits:
        return
    tracked: set[str] = set()
    for end in (commits[0], commits[-1]):
        tracked.update(
            p
            for p in git_out(runner, repo, "ls-tree", "-r", "-z", "--name-only", end, step=step, probe=True).split("\0")
            if p
        )
    changed = git_out(
        runner, repo, "log", "-z", "--name-only", "--format=", commits[-1], f"^{commits[0]}", step=step, probe=True
    )
    tracked.update(p.strip("\n") for p in changed.split("\0") if p.strip("\n"))
    conflicts = overwritten_by_checkout(ignored, sorted(tracked))
    if conflicts:
        raise WouldLoseData(
            f"{name} checkout {dest}: the commits from {commits[0][:12]} to {commits[-1][:12]} track paths where"
            f" ignored files of yours lie ({shown_names(tuple(conflicts))}); checking them out would overwrite those"
            " files, so nothing was changed",
            fix="move those files away (or commit them), then run again",
        )


def refuse_overwriting_ignored(name: str, dest: Path, commit: str, runner: Runner, step: str) -> None:
    """git checkout replaces ignored files (and folders of them) at paths the new commit tracks: for
    git they are expendable, for the user they are often work (notes, local configs kept out of git by
    .git/info/exclude). Such files make the move stop with exit 6, naming them; nothing is changed."""
    ignored = git_out(
        runner, dest, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", step=step, probe=True
    )
    tracked = git_out(runner, dest, "ls-tree", "-r", "-z", "--name-only", commit, step=step, probe=True)
    conflicts = overwritten_by_checkout([p for p in ignored.split("\0") if p], [p for p in tracked.split("\0") if p])
    if conflicts:
        raise WouldLoseData(
            f"{name} checkout {dest}: moving to {commit[:12]} would overwrite ignored files that commit tracks"
            f" ({shown_names(tuple(conflicts))}); nothing was changed",
            fix="move those files away (or commit them), then run again; or pass --allow-dirty to build the"
            " checkout as it stands",
        )


def overwritten_by_checkout(ignored: list[str], tracked: list[str]) -> list[str]:
    """The ignored files a checkout of a tree with the `tracked` files would replace or delete: the
    same path, a path under a file the tree tracks, or a path where the tree has a folder. Pure."""
    files = set(tracked)
    folders = {"/".join(parts[:i]) for parts in (p.split("/") for p in tracked) for i in range(1, len(parts))}
    conflicts = []
    for path in ignored:
        parts = path.rstrip("/").split("/")
        prefixes = ("/".join(parts[:i]) for i in range(1, len(parts)))
        if path in files or path.rstrip("/") in folders or any(prefix in files for prefix in prefixes):
            conflicts.append(path)
    return conflicts
