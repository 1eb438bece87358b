"""How setup brings distcc into its build steps.

1. Before the first build step that runs, the hosts are proven (bootstrap.pipeline.distcc.proof), and
   setup's driver plans again from the hosts that passed: their slots size the compile jobs. A build step
   that turns out to run later (after the venv was made, say) proves them then.
2. The build commands get ccache's remote (if any) and distcc's variables for their step, and LLVM's
   ccache's base_dir (bootstrap.pipeline.ccache.base_dir).
3. Each build is counted: ccache's hits and misses, and where distcc ran the misses.
4. What setup leaves for later builds by hand or `tritondev build` (the state's pip command, the
   CMakeUserPresets.json and shell values) is sized for this machine alone (the plan's
   `for_this_machine`): those run without distcc unless its setting says otherwise, and then `build`
   sizes them again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from bootstrap.pipeline.ccache.base_dir import llvm_base_dir_env
from bootstrap.pipeline.ccache.stats import ccache_counted, remote_failed_notice
from bootstrap.pipeline.distcc.client import DistccBuild, DistccCounts, DistccSetup, build_for, trouble_notice
from bootstrap.pipeline.distcc.proof import compilers_of, prove

if TYPE_CHECKING:
    from bootstrap.pipeline.setup.step_run import StepRun

BUILD_STEPS = ("llvm-configure", "llvm-build", "triton-install")


def prove_before_building(run: StepRun) -> DistccSetup | None:
    """The hosts proven (once) when a build step of the plan runs: those that passed, for the driver to plan
    again with; None when there is nothing to prove now."""
    setup = run.facts.distcc
    if setup is None or setup.proven or not any(s.runs for s in run.plan.steps if s.name in BUILD_STEPS):
        return None
    tc = run.facts.toolchain
    return prove(run.runner, setup, compilers_of(tc.cc.path, tc.cxx.path), run.console if not run.json else None)


def distcc_build(run: StepRun) -> DistccBuild | None:
    return build_for(run.facts.distcc, None if run.dry_run else run.workspace.logs)


def build_env(run: StepRun, step: str) -> dict[str, str | None]:
    """The variables a build command of `step` runs with besides its own: ccache's base_dir for LLVM's
    steps (bootstrap.pipeline.ccache.base_dir), the team cache's, distcc's."""
    env: dict[str, str | None] = {}
    if run.facts.toolchain.ccache is not None:
        env.update(llvm_base_dir_env(step, run.workspace.root, os.environ))
    env.update(run.facts.remote_env)
    build = distcc_build(run)
    if build is not None:
        env.update(build.env(step))
    return env


def counted(run: StepRun, label: str, step: str, action: Callable[[], object]) -> None:
    """Run `action` (a build of `step`); ccache's figures and distcc's in the report (its summary says them)."""
    build = distcc_build(run)
    done: list[DistccCounts | None] = []

    def build_it() -> None:
        if build is None:
            action()
        else:
            done.append(build.counted(step, action))

    counts = ccache_counted(run.runner, run.facts.toolchain.ccache, build_it)
    if counts is not None:
        run.report.ccache.append((label, counts))  # the summary at the end says it, once
        if counts.remote_errors:
            run.report.notices.append(remote_failed_notice(label, counts.remote_errors))
    where = done[0] if done else None
    if where is not None:
        run.report.distcc_builds.append((label, where))
        if where.troubled:
            run.report.notices.append(trouble_notice(label, where))
