"""What the `bisect` commands call: input checked before the workspace lock (which would create the
workspace), the lock the command declared, and where progress goes (nowhere under --json, unless -v)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import UsageError
from bootstrap.git.commit_range import split_ref
from bootstrap.pipeline.bisect import run as bisect
from bootstrap.pipeline.bisect.checks import setup_state
from bootstrap.pipeline.bisect.journal import BisectKind, BuildFailureMode, journal_path
from bootstrap.pipeline.bisect.outcome import BisectOutcome
from bootstrap.pipeline.bisect.restore import ResetOutcome

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext


def bisect_range(
    ctx: AppContext,
    kind: BisectKind,
    good: str,
    bad: str,
    build_failure: BuildFailureMode,
    command: Sequence[str] | None,
) -> BisectOutcome:
    """`tritondev bisect triton|llvm`: a new bisect (or the one recorded, when it is the same)."""
    if not command:
        raise UsageError(
            "no command to judge each commit with",
            fix=f"tritondev bisect {kind} --good REF --bad REF -- python my_test.py",
        )
    for ref, what in ((good, "--good"), (bad, "--bad")):
        split_ref(ref, what)  # a malformed ref says so in any workspace, set up or not
    setup_state(ctx)  # before the lock, which would create the workspace
    request = bisect.BisectRequest(kind, good, bad, tuple(command), build_failure, Path.cwd())
    if ctx.dry_run:
        return bisect.start(ctx, request, ui.err())
    with ctx.locked():
        return bisect.start(ctx, request, _progress(ctx))


def resume_bisect(ctx: AppContext) -> BisectOutcome:
    """`tritondev bisect resume`."""
    setup_state(ctx)
    with ctx.locked():
        return bisect.resume(ctx, _progress(ctx))


def reset_bisect(ctx: AppContext) -> ResetOutcome:
    """`tritondev bisect reset`: with no bisect recorded there is nothing to lock (nor a workspace to make)."""
    if not journal_path(ctx.workspace.state).exists():
        return bisect.reset(ctx, None)
    with ctx.locked():
        return bisect.reset(ctx, _progress(ctx))


def _progress(ctx: AppContext) -> Console | None:
    return None if ctx.json and not ctx.verbose else ui.err()
