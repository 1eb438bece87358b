"""`bisect triton` in a workspace built from your own clone (`--triton-src`): the bisect moves a
separate worktree of that clone, never the clone itself.

    <workspace>/src/triton-bisect   `git -C <clone> worktree add --detach`, moved to each commit

Each step builds and installs the worktree at its commit (setup's pipeline with the worktree as the
clone), and the end installs your clone again as it stands. Your branch, HEAD, index, working tree,
remotes and refs are never touched; nothing is fetched into the clone: --good, --bad and the commits
between them must already be there (`git fetch` them yourself).

What git writes into the clone for a worktree: `.git/worktrees/triton-bisect/`, for the length of the
bisect (bootstrap/git/worktrees.py). The end (done, failed, interrupted, or `bisect reset`) removes
the worktree again: the clone's .git is as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import CheckFailed, CommandFailed, MismatchError, UsageError
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import replace_json
from bootstrap.core.process.runner import Runner
from bootstrap.git.commit_range import split_ref
from bootstrap.git.worktrees import add_worktree, commit_of, commits_lacking, remove_worktree
from bootstrap.pipeline.bisect.steps import BuildFailed, Built, checkout, failed_build, llvm_built
from bootstrap.pipeline.built.state import read_state
from bootstrap.pipeline.setup import api as setup

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext
    from bootstrap.pipeline.bisect.steps import Built

WORKTREE = "triton-bisect"
STEP = "bisect-worktree"


def adopted_clone(ctx: AppContext) -> Path | None:
    """The clone the workspace was set up from (--triton-src), or None for a checkout tritondev made.

    While a bisect step is installed the setup state names the worktree: the clone is then the one
    recorded when the worktree was made (state/bisect-clone.json), until the clone is installed again."""

    state = read_state(ctx.workspace.state) if ctx.workspace.state.is_dir() else None
    if state is None or state.triton_src.resolve() == (ctx.workspace.triton_src).resolve():
        return None
    if state.triton_src.resolve() == worktree_path(ctx).resolve():
        return _recorded_clone(ctx)
    return state.triton_src


def _recorded_clone(ctx: AppContext) -> Path | None:
    try:
        data = parse_json(read_regular(StateFiles(ctx.workspace.state).bisect_clone, limit=1 << 16).decode("utf-8"))
    except (OSError, ValueError, RecursionError, UnicodeDecodeError):
        return None
    value = data.get("clone") if isinstance(data, dict) else None
    return Path(value) if isinstance(value, str) and value.startswith("/") else None


def record_clone(ctx: AppContext, clone: Path) -> None:
    replace_json(
        StateFiles(ctx.workspace.state).bisect_clone, {"clone": str(clone), "worktree": str(worktree_path(ctx))}
    )


def worktree_path(ctx: AppContext) -> Path:
    return ctx.workspace.src / WORKTREE


def local_commit(runner: Runner, clone: Path, ref: str, what: str) -> str:
    """--good/--bad in the clone itself (nothing is fetched into it)."""

    _, ref = split_ref(ref, what)
    sha = commit_of(runner, clone, ref, STEP)
    if sha is None:
        raise UsageError(
            f"{what} {ref!r} is not a commit of your clone {clone} (tritondev never fetches into it)",
            fix=f"fetch it yourself (git -C {clone} fetch origin), then run the bisect again",
        )
    return sha


def check_range_in_clone(runner: Runner, clone: Path, shas: list[str]) -> None:
    """A resumed bisect's commits must still be in the clone (nothing is fetched into it): a rebase or a
    `git gc` since the bisect started may have dropped some. UsageError naming them and the way on."""

    lacking = commits_lacking(runner, clone, shas, STEP)
    if lacking:
        shown = ", ".join(sha[:12] for sha in lacking[:5]) + (
            f" and {len(lacking) - 5} more" if len(lacking) > 5 else ""
        )
        raise UsageError(
            f"your clone {clone} no longer has {len(lacking)} commit(s) of the recorded bisect "
            f"({shown}); tritondev never fetches into it",
            fix=f"fetch them yourself (git -C {clone} fetch origin) and run `tritondev bisect resume`, "
            "or `tritondev bisect reset` and start again",
        )


class WorktreeStepper:
    """Each commit built in the worktree, through setup's pipeline with the worktree as the clone."""

    def __init__(
        self,
        ctx: AppContext,
        clone: Path,
        urls: Mapping[str, str],
        console: Console | None,
        said: set[str] | None = None,
    ) -> None:
        self.ctx, self.clone, self.urls, self.console = ctx, clone, dict(urls), console
        self.path = worktree_path(ctx)
        self.said: set[str] = set() if said is None else said  # setup's first lines, said once per bisect

    def build(self, commit: str, runner: Runner) -> Built:
        record_clone(self.ctx, self.clone)  # before the state names the worktree
        add_worktree(runner, self.clone, self.path, commit, STEP)
        checkout(runner, self.path, commit)
        note = ""
        try:
            setup.rebuild(
                self.ctx,
                runner,
                self.console,
                self.said,
                triton_src=self.path,
                allow_dirty=True,
                skip_verify=True,
                **self.urls,
            )
        except CommandFailed as exc:
            if (runner.history[-1].step if runner.history else "") not in (
                "llvm-configure",
                "llvm-build",
                "triton-install",
            ):
                raise
            raise failed_build(exc, "does not build", self.path) from None
        except MismatchError as exc:
            raise BuildFailed(f"cannot be built: {exc.message}") from None
        except CheckFailed as exc:
            note = exc.message
        return Built(llvm_built(runner), note)


def restore_clone(
    ctx: AppContext,
    runner: Runner,
    clone: Path,
    urls: Mapping[str, str],
    console: Console | None,
    said: set[str] | None = None,
) -> None:
    """Your clone installed again as it stands, and the worktree gone."""

    try:
        setup.rebuild(ctx, runner, console, said, triton_src=clone, allow_dirty=True, **urls)
    finally:
        remove_worktree(runner, clone, worktree_path(ctx), STEP)
    StateFiles(ctx.workspace.state).bisect_clone.unlink(missing_ok=True)  # the state names your clone again
