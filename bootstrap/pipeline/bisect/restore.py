"""After a bisect: both checkouts back at their starting commits and the starting build installed again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bootstrap.core.runner import Runner
from bootstrap.pipeline.bisect.steps import checkout, step_context
from bootstrap.pipeline.bisect.worktree import adopted_clone, restore_clone
from bootstrap.pipeline.setup.run import run_setup

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext


def restore(ctx: AppContext, runner: Runner, starts: Mapping[str, tuple[str, str | None]],
            urls: Mapping[str, str], console: Console | None) -> None:
    """Both checkouts back at their starting commits (and branches), the starting build installed again;
    with your own clone (--triton-src) the clone, never moved, is installed again and the bisect's
    worktree removed."""
    clone = adopted_clone(ctx)
    for name, (commit, branch) in starts.items():
        if name != "triton" or clone is None:
            checkout(runner, ctx.workspace.src / name, commit, branch)
    if clone is not None:
        restore_clone(ctx, runner, clone, urls, console)
        return
    triton_commit = starts["triton"][0]
    run_setup(step_context(ctx, runner, triton_commit=triton_commit, allow_dirty=True, **urls), console)
