"""What `tritondev setup` and `tritondev build` call: input checked before the workspace lock (which would
create the workspace), the lock the command declared, setup's record of how it ended, and setup's offer to
build the Triton checkout the user runs it in."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bootstrap.core import fixlines, ui
from bootstrap.core.errors import UsageError
from bootstrap.git.pins_adopted import clone_around
from bootstrap.pipeline.built.attempt import recording
from bootstrap.pipeline.setup.build import BuildResult, run_build
from bootstrap.pipeline.setup.execute import HANDLERS
from bootstrap.pipeline.setup.report import SetupReport
from bootstrap.pipeline.setup.run import precheck, run_setup

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext

Ask = Callable[[str], bool]  # a yes/no question on a terminal (default no)
SETUP_STEPS = frozenset(HANDLERS)  # the names of setup's steps (its commands are recorded under them)


def setup_workspace(ctx: AppContext, console: Console | None, ask: Ask | None) -> SetupReport:
    """The whole setup under the workspace lock, recorded in state/last-setup.json; `ask`: None where
    nobody can answer (a script, CI); never asked under --json."""
    precheck(ctx)  # bad input stops here, before the lock creates the workspace
    with ctx.locked(), recording(ctx, SETUP_STEPS):
        return run_setup(ctx, console, confirm=None if ctx.json else ask)


def adopt_the_clone_around(ctx: AppContext, ask: Ask | None) -> AppContext:
    """Run inside a Triton checkout (not given --triton-src, nor a commit to build), setup offers to build
    it as it stands: a question on a terminal, else (a script, CI, --json) a note saying how."""
    around = clone_around(ctx.settings, ctx.runner, ctx.workspace.triton_src)
    if around is None:
        return ctx
    if ask is not None and not ctx.json:
        if not ask(
            f"You are in the Triton checkout {around}. Build it as it stands (--triton-src) instead of a"
            " new checkout of the pin?"
        ):
            return ctx
        fixlines.setup_asked_for(str(around))
        return ctx.adopting(around)
    ui.note(
        f"you are in the Triton checkout {around}: `tritondev setup --triton-src {around}` builds it as it"
        " stands (this run makes its own checkout of the pin)"
    )
    return ctx


def build_workspace(ctx: AppContext, target: str | None, console: Console | None) -> BuildResult:
    """`tritondev build`: ninja in setup's build folder under the workspace lock (see run_build)."""
    if not ctx.workspace.state.is_dir():
        # Said before the lock, which would create the workspace (a typo in --workspace included).
        raise UsageError(
            f"no finished `tritondev setup` in workspace {ctx.workspace.root}", fix="run `tritondev setup` first"
        )
    with ctx.locked():
        return run_build(ctx, target, console)
