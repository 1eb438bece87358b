"""`tritondev setup`: gather the facts, plan, execute.

    facts (bootstrap.pipeline.facts)  ->  plan (bootstrap.pipeline.plan, pure)  ->  execute (.execute)

Every step that changes the machine is fingerprinted (bootstrap.pipeline.fingerprints): a re-run with
nothing changed starts no cmake, ninja or pip and says so; a changed input re-runs only what depends
on it; an interrupted run (Ctrl-C, kill -9) resumes, because a step's record is written only once
the step finished. The commands come from bootstrap.pipeline.recipe, the one place that decides flags.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bootstrap.core.interpreter import WORKSPACE_VENV
from bootstrap.pipeline import llvm_source
from bootstrap.pipeline.execute import execute
from bootstrap.pipeline.facts import gather_facts
from bootstrap.pipeline.report import SetupReport
from bootstrap.pipeline.sanitizer import check_sanitizer

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext

__all__ = ["SetupReport", "precheck", "run_setup"]


def precheck(ctx: AppContext) -> None:
    """Inputs judged without writing anything, before the workspace is created or locked: a bad
    --ccache-remote URL, a --llvm PATH that is no usable LLVM build, a --python (or TRITONDEV_PYTHON,
    active env) that is not a working interpreter.

    The target is probed here once, through the context; setup asks the context again and gets the
    same answer without a second probe.
    """
    if ctx.settings.ccache_remote:
        from bootstrap.pipeline.ccache_remote import parse_remote_url

        parse_remote_url(ctx.settings.ccache_remote)
    llvm_source.precheck(ctx.settings)  # --llvm PATH that is no LLVM build
    executable, origin = ctx.target_choice()
    if origin == WORKSPACE_VENV:
        # One spelling of the venv's interpreter whether or not it exists yet: the plan of a --dry-run
        # names the same commands as the run that creates the venv.
        spelled = ctx.workspace.venv / "bin" / "python"
        if executable != spelled:
            ctx.use_interpreter(spelled, WORKSPACE_VENV)
        return
    ctx.target_python()


def run_setup(ctx: AppContext, console: Console | None) -> SetupReport:
    """The whole pipeline; the caller holds the workspace lock (unless --dry-run)."""
    precheck(ctx)
    facts = gather_facts(ctx)
    check_sanitizer(ctx.runner, facts.toolchain.cxx.path, facts.toolchain.clang_lld, ctx.settings.sanitize)
    return execute(ctx, console, facts)
