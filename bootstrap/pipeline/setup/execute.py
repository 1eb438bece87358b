"""Executes a setup plan: the steps the driver (bootstrap.pipeline.setup.run) hands it, through the runner,
in order; records what finished. It plans nothing and reads no facts again: after each step that ran,
the driver reads again what it changed and plans the remaining steps anew.

Rules the plan alone cannot settle, because their facts exist only once a step ran:

1. A step's record is written only after it finished (a "started" mark replaces it first), so a run
   cut short at any moment (Ctrl-C, kill -9) redoes that step next time and nothing before it.
2. What observing learnt and the plan carries (the package host's answer to --llvm auto) is recorded
   first, once setup changes the workspace (never under --dry-run).
3. The purge's scan decides whether there is anything to remove; when there is nothing, the step is
   up to date after all. When something is (or would be) removed, verify runs whatever its record.
4. Before the LLVM steps, the reused LLVM build is linked in and the files rendered from the presets
   (CMakeUserPresets.json, the shell values) are written; compile_commands.json is linked into each
   checkout after its build.
5. At the end, the environment as the run left it is recorded for the next purge decision, and the
   state for `tritondev build` (bootstrap.pipeline.built.state) is written; git's untracked cache is written
   into each clean checkout this run moved or whose .git/info/exclude it wrote, so that the next
   run's check for local changes reads only the folders that changed (bootstrap.git.local_changes).
6. Before the first build step that runs, what Triton's CMake would stop on late is checked
   (bootstrap.pipeline.host.prerequisites); after the install of an offline build, the tools it left out
   are placed where Triton looks for them (bootstrap.pipeline.host.offline), every run, and before the
   install too where the checkout's CMake compiles the GSan runtime against that folder (3.7).

Under --dry-run the same steps run their commands through the dry-run runner (shown, not run),
nothing is written, and each step that would run says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bootstrap.core.errors import ExternalError
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.process.runner import PlannedCommand
from bootstrap.core.settings import remembered
from bootstrap.pipeline.built.long_commands import run_streamed
from bootstrap.pipeline.built.records import StepOutcome, StepStatus
from bootstrap.pipeline.built.state import SetupState, write_state
from bootstrap.pipeline.host import offline
from bootstrap.pipeline.host.buildtree import triton_cmake_dirs
from bootstrap.pipeline.host.fresh_cache import start_fresh
from bootstrap.pipeline.host.prerequisites import check_prerequisites
from bootstrap.pipeline.host.toolchain import remember_versions
from bootstrap.pipeline.llvm import builds as llvm_builds
from bootstrap.pipeline.llvm import plan as llvm_steps
from bootstrap.pipeline.llvm.auto import remember_answer, remember_choice
from bootstrap.pipeline.recipe.inputs import Command
from bootstrap.pipeline.setup import checkout_files, distcc_steps, environment_steps
from bootstrap.pipeline.setup import llvm_steps as llvm_install
from bootstrap.pipeline.setup.checkout_steps import run_checkout
from bootstrap.pipeline.setup.facts import SetupFacts
from bootstrap.pipeline.setup.plan import PlannedStep, Record, SetupPlan
from bootstrap.pipeline.setup.plan_inputs import target_bin
from bootstrap.pipeline.setup.report import LlvmReport, SetupReport
from bootstrap.pipeline.setup.step_run import StepRun
from bootstrap.pipeline.setup.verify_step import run_verify

BUILD_STEPS = distcc_steps.BUILD_STEPS


@dataclass
class Execution(StepRun):
    """A setup run: the steps of its plan run in order, with what happens around them."""

    # -- one step -----------------------------------------------------------------------------------
    def run_step(self, step: PlannedStep) -> bool:
        """Run `step` if the plan (or rule 3) says so; True when it ran (or would have)."""
        forced = self.forced.get(step.name)
        if not step.runs and forced is None:
            self.report.steps.append(StepOutcome(step.name, StepStatus.UP_TO_DATE, step.reason))
            return False
        if step.record == Record.STEPS and not self.dry_run:
            self.records.started(step.name)
        first, started = len(self.runner.history), time.monotonic()
        turned_out = HANDLERS[step.name](self, step)
        seconds = time.monotonic() - started
        self.report.commands += commands_of(self.runner.history[first:])
        if turned_out is not None:
            self.report.steps.append(StepOutcome(step.name, StepStatus.UP_TO_DATE, turned_out, seconds))
            return False
        if step.record == Record.STEPS and not self.dry_run:
            self.records.finished(
                step.name, step.inputs, {d: self.plan.step(d).fingerprint for d in step.after}, seconds
            )
        status = StepStatus.WOULD_RUN if self.dry_run else StepStatus.RAN
        self.report.steps.append(StepOutcome(step.name, status, forced or step.reason, seconds))
        return True

    def streamed(self, command: Command, label: str) -> None:
        run_streamed(
            self.runner,
            command,
            label,
            self.console,
            show_progress=not self.json,
            extra_env=distcc_steps.build_env(self, command.step),
        )

    def counted(self, label: str, step: str, action: Callable[[], object]) -> None:
        """`action` with ccache's figures for it (and distcc's) in the report."""
        distcc_steps.counted(self, label, step, action)

    # -- around the steps ---------------------------------------------------------------------------
    def remember(self) -> None:
        """What observing learnt and the plan carries, recorded now that setup changes the workspace."""
        learnt = self.plan.remember
        if learnt is not None and not self.dry_run:
            remember_answer(self.workspace.state, learnt.url, learnt.answer)

    def before(self, name: str) -> None:
        if name in BUILD_STEPS and not self.prechecked and self.plan.step(name).runs and not self.dry_run:
            self.prechecked = True
            facts = self.facts
            self.report.notices += check_prerequisites(
                self.runner, facts.toolchain, facts.target.python, facts.pins.layout.build_requires, target_bin(facts)
            )
        if (
            name == "triton-install"
            and self.plan.step(name).runs
            and not self.dry_run
            and self.facts.pins.layout.setup_args.gsan_cuda_path
        ):
            # 3.7 compiles the GSan runtime during the build with --cuda-path=third_party/nvidia/backend:
            # offline nothing is downloaded there, so the tools and headers go in before, not after.
            self.place_offline_tools()
        if name in ("llvm-configure", "llvm-download", "llvm-use") and not self.dry_run:
            ws = self.workspace
            if not self.facts.tools_cache_present and ws.state.is_dir():
                remember_versions(self.facts.toolchain, StateFiles(ws.state).tool_versions)
            llvm_builds.link_reused(self.facts.llvm_folders.mine, self.plan.llvm)
            here = self.plan.for_this_machine()  # what builds by hand run with
            self.report.notices += checkout_files.write_local_files(
                ws,
                self.facts.triton.path,
                here.presets,
                here.llvm,
                here.jobs.compile,
                self.touched,
                adopted=self.facts.triton.adopted,
                llvm_elsewhere=self.facts.llvm.elsewhere(here.llvm.build),
            )

    def before_anything(self, confirm: Callable[[str], bool] | None) -> None:
        """A cold LLVM source build ahead: what it costs, said before anything is fetched. When --llvm auto
        chose it only because the package host could not be reached (perhaps for a minute, unlike a package
        that does not exist), the user's yes first on a terminal (`confirm`); without one, go on, said first."""
        if not any(s.name == "llvm-configure" and s.runs for s in self.plan.steps):
            return
        cost = llvm_steps.source_build_cost(
            self.facts.resources,
            self.plan.jobs,
            self.settings.llvm_build_type,
            offer_prebuilt=self.facts.llvm.auto is None,
        )
        if self.report.llvm is not None:
            self.report.llvm.source_build_cost = cost
        self.say(f"note: {cost}")
        auto = self.facts.llvm.auto
        if auto is None or not auto.unreachable or self.dry_run:
            return
        if confirm is None:
            self.say(
                f"note: {auto.why}: going on with the source build without asking (no terminal); Ctrl-C "
                "stops it, and `tritondev setup` again once the host answers takes the package"
            )
        elif not confirm(f"{auto.why}. Build LLVM {self.facts.pins.llvm_commit[:12]} from source instead?"):
            raise ExternalError(
                f"no LLVM source build without a yes: {auto.why}",
                fix="run `tritondev setup` again once the host answers (an unreachable host is not"
                " remembered), or pass --llvm source to build it, or --llvm-prebuilt-url URL",
            )

    def after(self, name: str) -> None:
        if self.dry_run:
            return
        if name in ("llvm-build", "llvm-download") and self.facts.llvm.auto is not None:
            remember_choice(
                self.workspace.state, self.facts.pins.llvm_commit, "source" if name == "llvm-build" else "prebuilt"
            )
        if name == "llvm-build":
            checkout_files.link_compile_commands(
                self.plan.llvm.build, self.plan.llvm.source, self.workspace.llvm_builds
            )
        elif name == "triton-install":
            self.editor_files()
            self.place_offline_tools()

    def place_offline_tools(self) -> None:
        """--offline: this machine's CUDA tools and headers where an online build downloads its own
        (bootstrap.pipeline.host.offline), listed in the checkout's .git/info/exclude first."""
        build = self.facts.offline
        if build is not None and build.place and self.facts.triton.path.is_dir():
            if not self.facts.triton.adopted:
                checkout_files.exclude_locally(self.facts.triton.path, offline.excluded_paths(build), self.touched)
            offline.place_tools(self.facts.triton.path, build)

    def editor_files(self) -> None:
        """compile_commands.json linked at the root and a .clangd (where none is) in a checkout tritondev
        made, every era (upstream's setup.py links it itself from 3.5, #7305); your own clone gets nothing
        (`tritondev env --editor` prints what to link)."""
        dirs = triton_cmake_dirs(self.facts.setup_dir)
        if not dirs or self.facts.triton.adopted:
            return
        checkout_files.link_compile_commands(dirs[0], self.facts.triton.path, dirs[0].parent)
        if checkout_files.write_clangd(self.facts.triton.path, dirs[0]):
            self.report.notices.append(
                f"wrote {self.facts.triton.path / '.clangd'}: clangd reads the compile commands of {dirs[0]}"
            )

    def finish(self) -> None:
        facts, plan = self.facts, self.plan
        reports = [self.checkouts.get(c.name, c.report) for c in facts.checkouts]
        self.report.checkouts = reports
        target = facts.target.python
        if self.dry_run or target is None:
            return
        checkout_files.prime_status(self.runner, self.touched & {r.path for r in reports if r.matches_pin})
        # The environment as this setup left it: the next run skips the purge scan if it is unchanged.
        purge = plan.step("purge")
        if facts.records.get("purge") is None or facts.records["purge"].fingerprint != purge.fingerprint:
            self.records.finished("purge", purge.inputs, {})
        install_command = plan.for_this_machine().presets.pip_install  # `build` sizes its own
        write_state(
            self.workspace.state,
            SetupState(
                triton_src=facts.triton.path,
                setup_dir=facts.setup_dir,
                python=plan.python,
                python_origin=facts.target.origin,
                llvm_build=plan.llvm.build,
                triton_commit=facts.pins.triton_commit,
                install=install_command,
                ccache=facts.toolchain.ccache,
                llvm_pin=facts.pins.llvm_commit,
            ),
        )
        remembered.remember(self.workspace.root, self.settings)  # what the next run starts from


# -- the steps ------------------------------------------------------------------------------------------
# A handler runs its step's commands; it returns None, or why the step turned out to be up to date. The build
# steps' handlers are here; the checkouts', the target environment's, LLVM's package and verify's are beside.


def _fresh_start(run: Execution, step: PlannedStep) -> None:
    """The rule of bootstrap.pipeline.host.fresh_cache: the step's build folder starts from a fresh CMake cache
    (its cache files removed here, unless its configure command says `--fresh` itself)."""
    fresh = step.fresh
    if fresh is None:
        return
    run.report.notices.append(f"fresh CMake cache for {fresh.notice()}")
    if not run.dry_run and not fresh.by_argument:
        start_fresh(fresh.folder)


def _llvm_configure(run: Execution, step: PlannedStep) -> str | None:
    where = run.plan.llvm
    _fresh_start(run, step)
    if step.fresh is not None:
        run.forced["llvm-build"] = f"{step.fresh.decision.reason}: ninja runs on the new configure"
    if not run.dry_run:
        where.build.mkdir(parents=True, exist_ok=True)
        run.stamp.update(configure_fingerprint=None, build_fingerprint=None)
        llvm_builds.write_stamp(where.build, run.stamp)
    command = step.commands[0]
    run.runner.run(
        command.argv,
        step=command.step,
        env=command.runner_env(),
        fix="see the log; a missing tool or a bad flag is named near its end",
    )
    if not run.dry_run:
        run.stamp.update(
            configure_fingerprint=step.fingerprint,
            build_fingerprint=None,
            source=str(where.source),
            key=run.plan.presets.llvm_key,
        )
        llvm_builds.write_stamp(where.build, run.stamp)
    return None


def _llvm_build(run: Execution, step: PlannedStep) -> str | None:
    where = run.plan.llvm
    run.counted("LLVM build", step.name, lambda: run.streamed(step.commands[0], "LLVM/MLIR"))
    if not run.dry_run:
        run.stamp.update(
            build_fingerprint=step.fingerprint,
            commit=run.facts.pins.llvm_commit,
            source=str(where.source),
            key=run.plan.presets.llvm_key,
        )
        llvm_builds.write_stamp(where.build, run.stamp)
        llvm_builds.register(run.plan.presets.llvm_key, where.build.resolve(), where.source.resolve())
    return None


def _install(run: Execution, step: PlannedStep) -> str | None:
    _fresh_start(run, step)
    run.counted("Triton build", step.name, lambda: run.streamed(step.commands[0], "Triton"))
    return None


HANDLERS: dict[str, Callable[[Execution, PlannedStep], str | None]] = {
    "venv": environment_steps.run_venv,
    "checkout-triton": run_checkout,
    "checkout-llvm-project": run_checkout,
    "llvm-configure": _llvm_configure,
    "llvm-build": _llvm_build,
    "purge": environment_steps.run_purge,
    "triton-requirements": environment_steps.run_requirements,
    "triton-install": _install,
    "verify": run_verify,
    **llvm_install.HANDLERS,
}


def start_report(facts: SetupFacts, plan: SetupPlan) -> SetupReport:
    return SetupReport(
        workspace=facts.workspace.root,
        dry_run=facts.dry_run,
        pins=facts.pins,
        toolchain=facts.toolchain,
        jobs=plan.jobs,
        resources=facts.resources,
        presets=plan.presets,
        llvm_build=str(plan.llvm.build),
        llvm_reused_from=plan.llvm.reused_from,
        target_python=str(plan.python),
        notices=list(plan.notices),
        notes=list(plan.notes),
        llvm=LlvmReport(facts.llvm, plan.llvm.build),
    )


def commands_of(history: list[PlannedCommand]) -> list[PlannedCommand]:
    """The commands that change the machine, probes left out."""
    return [c for c in history if not c.probe]
