"""`tritondev setup`: gather the facts, plan, execute; this driver owns the loop.

    observe (bootstrap.pipeline.setup.facts) -> plan (bootstrap.pipeline.setup.plan, pure)
        -> execute one step (bootstrap.pipeline.setup.execute) -> observe what it changed -> plan again

Observing only reads, the plan is pure, and the executor only executes: what observing learnt that must
be kept (the package host's answer to --llvm auto) rides in the plan to the executor, which records it.

Every step that changes the machine is fingerprinted (bootstrap.pipeline.built.records): a re-run with
nothing changed starts no cmake, ninja or pip and says so; a changed input re-runs only what depends
on it; an interrupted run (Ctrl-C, kill -9) resumes, because a step's record is written only once
the step finished. The commands come from bootstrap.pipeline.recipe, the one place that decides flags.

The command's context stops here: what comes below gets the settings, the workspace, a runner, the
target and the output flags it uses (tests/unit/docs/test_context_reach.py measures how far it goes).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import ExitCode, ToolMissing, TritondevError
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings_table import Settings
from bootstrap.core.settings.values import parse_remote_url
from bootstrap.core.target.interpreter import WORKSPACE_VENV, Target, path_python
from bootstrap.git.adopt import check_clone
from bootstrap.pipeline.distcc import client as distcc
from bootstrap.pipeline.distcc.client import left_out_notice
from bootstrap.pipeline.host.jobs import detect, size_for_settings
from bootstrap.pipeline.host.sanitizer import check_sanitizer
from bootstrap.pipeline.host.toolchain import detect_toolchain
from bootstrap.pipeline.llvm import source as llvm_source
from bootstrap.pipeline.llvm.auto import PrebuiltUnavailable, Probe, remember_answer
from bootstrap.pipeline.setup import distcc_steps
from bootstrap.pipeline.setup.execute import BUILD_STEPS, Execution, start_report
from bootstrap.pipeline.setup.facts import SetupFacts, gather_facts, refresh
from bootstrap.pipeline.setup.plan import plan_setup
from bootstrap.pipeline.setup.report import KernelCheck, KernelsSkipped, SetupReport, Unresolved, UnresolvedPins
from bootstrap.pipeline.setup.step_run import KernelChecker

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext
    from bootstrap.kernels.verify import Check

__all__ = ["SetupReport", "drive", "precheck", "run_setup"]

PREREQUISITES = "prerequisites checked"  # in `said`: the build prerequisites were checked in this command


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


def _say_where_it_installs(venv_python: Path, json: bool) -> None:
    """The reading commands may have shown a python3 from PATH; setup installs into its own venv."""

    on_path = path_python()
    if on_path is None or venv_python.exists() or json:
        return

    ui.note(
        f"installing into the workspace venv {venv_python.parent.parent}, not into "
        f"{on_path} (first python3 on PATH): pass --python {on_path} to install there"
    )


def run_setup(
    ctx: AppContext, console: Console | None, said: set[str] | None = None, confirm: Callable[[str], bool] | None = None
) -> SetupReport:
    """The whole pipeline; the caller holds the workspace lock (unless --dry-run). `said`: the lines said
    and the checks made before in this command (a bisect runs setup at every step), not again; `confirm`:
    asks the user yes or no (on a terminal; None: there is nobody to ask)."""
    precheck(ctx)
    target = ctx.target()
    if target.origin == WORKSPACE_VENV:
        _say_where_it_installs(target.executable, ctx.json)
    settings, workspace, runner = ctx.settings, ctx.workspace, ctx.runner
    try:
        facts = gather_facts(settings, workspace, runner, target, dry_run=ctx.dry_run)
    except TritondevError as exc:
        # Offline (or a server down), a --dry-run still shows what it knows and marks what it could not resolve.
        if not ctx.dry_run or exc.exit_code != ExitCode.EXTERNAL_FAILED:
            raise
        return unresolved_plan(settings, workspace, runner, target, exc)
    check_sanitizer(runner, facts.toolchain.cxx.path, facts.toolchain.clang_lld, settings.sanitize)
    said = set() if said is None else said
    _say_first(console, facts, said)
    check_kernels = _kernel_check(ctx)
    try:
        return drive(
            facts, runner, target, console, json=ctx.json, check_kernels=check_kernels, confirm=confirm, said=said
        )
    except PrebuiltUnavailable as exc:
        # --llvm auto never fails where --llvm source would succeed: the package is remembered as
        # unusable, and the same setup goes on with a source build (the steps done stay done).
        remember_answer(workspace.state, exc.url, Probe("unusable", exc.why))
        facts = gather_facts(settings, workspace, runner, target, dry_run=ctx.dry_run)
        _say_first(console, facts, said)
        return drive(
            facts, runner, target, console, json=ctx.json, check_kernels=check_kernels, confirm=confirm, said=said
        )


def _kernel_check(ctx: AppContext) -> KernelChecker:
    """The verify command's kernel check, as setup's verify step runs it last: no torch or numpy in the
    target means it cannot run there (provenance stands)."""

    def check(tools: Check | None) -> KernelCheck:
        from bootstrap.kernels import verify as kernel_verify  # late: see bootstrap.pipeline.setup.report

        try:
            return kernel_verify.run_verify(ctx, [], tools=tools)
        except ToolMissing as exc:
            return KernelsSkipped(exc.message)

    return check


def drive(
    facts: SetupFacts,
    runner: Runner,
    target: Target,
    console: Console | None,
    *,
    json: bool,
    check_kernels: KernelChecker,
    confirm: Callable[[str], bool] | None = None,
    said: set[str] | None = None,
) -> SetupReport:
    """Plan from `facts` and execute the plan step by step; after each step that ran, read again what it
    changed and plan the rest anew. The report says what each step did and what ran. `said`: what this
    command did before (a bisect runs setup at every step): the prerequisites of a build, checked once."""
    plan = plan_setup(facts)
    said = set() if said is None else said
    run = Execution(
        facts.settings,
        facts.workspace,
        runner,
        facts.dry_run,
        json,
        console,
        facts,
        plan,
        start_report(facts, plan),
        check_kernels,
        stamp=dict(plan.llvm.stamp),
        prechecked=PREREQUISITES in said,
    )
    run.remember()
    _prove_distcc(run)  # before anything changes, when a build step would run
    run.before_anything(confirm)
    for name in [s.name for s in run.plan.steps]:
        if name in BUILD_STEPS:
            _prove_distcc(run)  # a build step that turns out to run now proves them now
        run.before(name)
        if run.run_step(run.plan.step(name)) and not run.dry_run:
            run.facts = refresh(run.facts, name, runner, target)
            run.plan = plan_setup(run.facts)
        run.after(name)
    if run.prechecked:
        said.add(PREREQUISITES)
    run.finish()
    return run.report


def _prove_distcc(run: Execution) -> None:
    """The distcc hosts proven when a build step runs, and the plan made again from those that passed."""
    proven = distcc_steps.prove_before_building(run)
    if proven is None:
        return
    run.facts = dataclasses.replace(run.facts, distcc=proven)
    run.plan = plan_setup(run.facts)
    run.report.distcc, run.report.jobs, run.report.presets = proven, run.plan.jobs, run.plan.presets
    run.report.notices += [left_out_notice(v) for v in proven.left_out()]


def _say_first(console: Console | None, facts: SetupFacts, said: set[str]) -> None:
    """Before anything is built, on stderr (--json too), each line once per command: what is built when
    it is your clone (a failed build then still says it), and --llvm auto's choice and why (dim: notes)."""
    auto = facts.llvm.auto
    lines = [facts.triton.adopted_line if facts.triton.adopted else None, auto.line() if auto is not None else None]
    for line in lines:
        if line is None or console is None or line in said:
            continue
        said.add(line)
        console.print(line, style="dim", highlight=False, markup=False, soft_wrap=True)


def unresolved_plan(
    settings: Settings, workspace: Workspace, runner: Runner, target: Target, failure: TritondevError
) -> SetupReport:
    """A dry run's report when the pins could not be read: the settings, the target, the tools and
    jobs, and what could not be resolved (the pins, hence the checkouts and builds that follow them)."""

    s = settings
    resources = detect()
    jobs = size_for_settings(s, resources)
    toolchain = detect_toolchain(runner, use_lld=s.lld, use_ccache=s.ccache)
    why = failure.message + (f" (fix: {failure.fix})" if failure.fix else "")
    return SetupReport(
        workspace=workspace.root,
        dry_run=True,
        pins=UnresolvedPins.of(s, why),
        toolchain=toolchain,
        jobs=jobs,
        resources=resources,
        target_python=str(target.executable),
        unresolved=Unresolved(why),
        failure=failure,
    )
