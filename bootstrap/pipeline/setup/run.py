"""`tritondev setup`: gather the facts, plan, execute.

    facts (bootstrap.pipeline.setup.facts)  ->  plan (bootstrap.pipeline.setup.plan, pure)  ->  execute (.execute)

Every step that changes the machine is fingerprinted (bootstrap.pipeline.built.records): a re-run with
nothing changed starts no cmake, ninja or pip and says so; a changed input re-runs only what depends
on it; an interrupted run (Ctrl-C, kill -9) resumes, because a step's record is written only once
the step finished. The commands come from bootstrap.pipeline.recipe, the one place that decides flags.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import ExitCode, TritondevError
from bootstrap.core.interpreter import WORKSPACE_VENV, path_python
from bootstrap.core.values import parse_remote_url
from bootstrap.git.adopt import check_clone
from bootstrap.pipeline.distcc import client as distcc
from bootstrap.pipeline.host.jobs import detect, size_for_settings
from bootstrap.pipeline.host.sanitizer import check_sanitizer
from bootstrap.pipeline.host.toolchain import detect_toolchain
from bootstrap.pipeline.llvm import source as llvm_source
from bootstrap.pipeline.llvm.auto import AutoDecision, PrebuiltUnavailable, Probe, remember_answer
from bootstrap.pipeline.setup.execute import execute
from bootstrap.pipeline.setup.facts import SetupFacts, gather_facts
from bootstrap.pipeline.setup.report import SetupReport

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext

__all__ = ["SetupReport", "precheck", "run_setup"]


def precheck(ctx: AppContext) -> None:
    """Inputs judged without writing anything, before the workspace is created or locked: a bad
    --ccache-remote URL, --distcc without distcc or ccache, a --llvm PATH that is no usable LLVM build, a
    --triton-src that is no Triton clone, a --python (or TRITONDEV_PYTHON, active env) that is not a working
    interpreter.

    The target is probed here once, through the context; setup asks the context again and gets the
    same answer without a second probe.
    """
    if ctx.settings.ccache_remote:
        parse_remote_url(ctx.settings.ccache_remote)
    distcc.observe(ctx.settings, shutil.which("ccache") is not None)  # distcc without distcc or ccache
    llvm_source.precheck(ctx.settings)  # --llvm PATH that is no LLVM build
    if ctx.settings.triton_src is not None:  # --triton-src that is no Triton clone

        check_clone(ctx.settings.triton_src, ctx.runner.logging_to(None))
    if ctx.dry_run:
        ctx.workspace.check_creatable()  # the real run would stop there: the dry run says so, with its exit code
    executable, origin = ctx.target_choice()
    if origin == WORKSPACE_VENV:
        # One spelling of the venv's interpreter whether or not it exists yet: the plan of a --dry-run
        # names the same commands as the run that creates the venv.
        spelled = ctx.workspace.venv / "bin" / "python"
        if executable != spelled:
            ctx.use_interpreter(spelled, WORKSPACE_VENV)
        return
    ctx.target_python()


def _say_where_it_installs(ctx: AppContext, venv_python: Path) -> None:
    """The reading commands may have shown a python3 from PATH; setup installs into its own venv."""

    on_path = path_python()
    if on_path is None or venv_python.exists() or ctx.json:
        return

    ui.note(f"installing into the workspace venv {venv_python.parent.parent}, not into "
            f"{on_path} (first python3 on PATH): pass --python {on_path} to install there")


def run_setup(ctx: AppContext, console: Console | None, said: set[str] | None = None,
              confirm: Callable[[str], bool] | None = None) -> SetupReport:
    """The whole pipeline; the caller holds the workspace lock (unless --dry-run). `said`: the lines said
    and the checks made before in this command (a bisect runs setup at every step), not again; `confirm`:
    asks the user yes or no (on a terminal; None: there is nobody to ask)."""
    precheck(ctx)
    executable, origin = ctx.target_choice()
    if origin == WORKSPACE_VENV:
        _say_where_it_installs(ctx, executable)
    try:
        facts = gather_facts(ctx)
    except TritondevError as exc:
        # Offline (or a server down), a --dry-run still shows what it knows and marks what it could not resolve.
        if not ctx.dry_run or exc.exit_code != ExitCode.EXTERNAL_FAILED:
            raise
        return unresolved_plan(ctx, exc)
    check_sanitizer(ctx.runner, facts.toolchain.cxx.path, facts.toolchain.clang_lld, ctx.settings.sanitize)
    said = set() if said is None else said
    _say_first(console, facts, said)
    try:
        return execute(ctx, console, facts, confirm, said)
    except PrebuiltUnavailable as exc:
        # --llvm auto never fails where --llvm source would succeed: the package is remembered as
        # unusable, and the same setup goes on with a source build (the steps done stay done).
        remember_answer(ctx.workspace.state, exc.url, Probe("unusable", exc.why))
        facts = gather_facts(ctx)
        _say_first(console, facts, said)
        return execute(ctx, console, facts, confirm, said)


def _say_first(console: Console | None, facts: SetupFacts, said: set[str]) -> None:
    """Before anything is built, on stderr (--json too), each line once per command: what is built when
    it is your clone (a failed build then still says it), and --llvm auto's choice and why (dim: notes)."""
    auto: AutoDecision | None = facts.llvm_source.auto
    lines = [facts.triton.adopted_line if facts.triton is not None and facts.triton.adopted else None,
             auto.line() if auto is not None else None]
    for line in lines:
        if line is None or console is None or line in said:
            continue
        said.add(line)
        console.print(line, style="dim", highlight=False, markup=False, soft_wrap=True)


def unresolved_plan(ctx: AppContext, failure: TritondevError) -> SetupReport:
    """A dry run's report when the pins could not be read: the settings, the target, the tools and
    jobs, and what could not be resolved (the pins, hence the checkouts and builds that follow them)."""

    s = ctx.settings
    resources = detect()
    jobs = size_for_settings(s, resources)
    toolchain = detect_toolchain(ctx.runner, use_lld=s.lld, use_ccache=s.ccache)
    given = {"torch_ref": s.torch_ref, "triton_commit": s.triton_commit, "backend": s.backend,
             "pytorch_url": s.pytorch_url, "triton_url": s.triton_url, "llvm_url": s.llvm_url,
             "mirror": str(s.mirror) if s.mirror else None}
    why = failure.message + (f" (fix: {failure.fix})" if failure.fix else "")
    return SetupReport(
        workspace=ctx.workspace.root, dry_run=True, pins={**given, "unresolved": why},
        toolchain=toolchain, jobs=jobs, resources=resources,
        target_python=str(ctx.target_choice()[0]),
        unresolved={"pins": why, "steps": "checkouts, LLVM and Triton builds, purge and verify: "
                    "planned once the pins resolve"},
        failure=failure,
    )
