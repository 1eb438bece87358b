"""A detached worktree of a clone, and commits named in a clone: what `bisect triton` asks of git in
your own clone (`--triton-src`), where it may only add and remove its own worktree.

What git writes into the clone for a worktree: `.git/worktrees/<name>/` (its HEAD, index and logs),
taken away again by `remove_worktree` (`git worktree remove --force`, then `git worktree prune`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bootstrap.core.errors import UsageError
from bootstrap.core.process.runner import Runner
from bootstrap.git.refs import SHA_RE


def commit_of(runner: Runner, repo: Path, ref: str, step: str) -> str | None:
    """The commit `ref` names in `repo` (any rev-parse expression: a branch, a tag, main~20), or None.
    Reads only."""
    said = runner.capture(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        step=step,
        check=False,
    )
    sha = said.stdout.strip()
    return sha if said.returncode == 0 and SHA_RE.match(sha) else None


def commits_lacking(runner: Runner, repo: Path, shas: list[str], step: str) -> list[str]:
    """The commits of `shas` that `repo` does not have. Reads only: no index refresh, and no lazy fetch
    from a partial clone's promisor (GIT_NO_LAZY_FETCH, git 2.44 on; commits of a blobless clone are all
    local anyway)."""
    result = runner.capture(
        ["git", "--no-optional-locks", "-C", str(repo), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
        step=step,
        check=False,
        env={"GIT_NO_LAZY_FETCH": "1"},
        input_text="".join(f"{sha}\n" for sha in shas),
    )
    present = {line.split()[0] for line in result.stdout.splitlines() if line.endswith(" commit")}
    return [sha for sha in shas if sha not in present]


def add_worktree(runner: Runner, clone: Path, path: Path, commit: str, step: str) -> None:
    """A detached worktree of `clone` at `path`, at `commit` (kept when it is one already; any other
    folder of that name is refused and left alone)."""
    if (path / ".git").is_file():
        return
    if path.exists():
        raise UsageError(
            f"{path} exists and is not the bisect's worktree; it is left alone",
            fix=f"move {path} away, then run the bisect again",
        )
    runner.run(
        ["git", "-C", str(clone), "worktree", "add", "--detach", "--quiet", str(path), commit],
        step=step,
        fix="`git worktree list` in your clone says what is in the way",
    )


def remove_worktree(runner: Runner, clone: Path, path: Path, step: str) -> None:
    """The worktree at `path` and git's record of it gone from `clone` (an empty folder left by an
    interrupted `worktree add` too; a folder with anything in it that is no worktree is left alone)."""
    if (path / ".git").is_file():
        runner.run(["git", "-C", str(clone), "worktree", "remove", "--force", str(path)], step=step, check=False)
    runner.run(["git", "-C", str(clone), "worktree", "prune"], step=step, check=False)
    if path.is_dir() and not any(path.iterdir()):
        shutil.rmtree(path)
