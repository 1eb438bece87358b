"""Setup's public surface for what stands above it (the commands, bisect, the IR tools): `tritondev
setup` itself and its report, the workspace rebuilt with other settings, setup's plan at other settings
without running it, the LLVM build `bisect llvm` makes commit after commit, and `tritondev build`.
Nothing above setup imports its other modules (tests/unit/docs/test_architecture.py).

Settings changed here are changed as if given on the command line (their source says so), so that a
rebuild at another commit is exactly the setup a user would run with `--triton-commit`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings_table import SettingSource, SourceKind
from bootstrap.pipeline.built.records import fingerprint
from bootstrap.pipeline.distcc.client import DistccBuild, build_for
from bootstrap.pipeline.distcc.proof import compilers_of, prove
from bootstrap.pipeline.host.toolchain import Tool
from bootstrap.pipeline.recipe.era import llvm_era
from bootstrap.pipeline.recipe.llvm import llvm_flags_key
from bootstrap.pipeline.recipe.presets import Presets, make_presets
from bootstrap.pipeline.setup.build import BuildResult, run_build
from bootstrap.pipeline.setup.entry import SETUP_STEPS, adopt_the_clone_around, build_workspace, setup_workspace
from bootstrap.pipeline.setup.facts import LlvmCheckout, gather_facts
from bootstrap.pipeline.setup.plan import SetupPlan, plan_setup
from bootstrap.pipeline.setup.plan_inputs import VOLATILE, preset_inputs, size_for, stable
from bootstrap.pipeline.setup.report import LlvmReport, SetupReport
from bootstrap.pipeline.setup.run import precheck, run_setup

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext

__all__ = [
    "SETUP_STEPS",
    "VOLATILE",
    "BuildResult",
    "LlvmBisectBuild",
    "LlvmReport",
    "SetupPlan",
    "SetupReport",
    "adopt_the_clone_around",
    "build_workspace",
    "llvm_bisect_build",
    "plan_at",
    "precheck",
    "rebuild",
    "run_build",
    "run_setup",
    "setup_workspace",
    "with_settings",
]

BISECT_LLVM_FOLDER = "llvm-bisect"  # <workspace>/build/llvm-bisect/<key without the commit>


def with_settings(ctx: AppContext, runner: Runner, /, **settings: object) -> AppContext:
    """`ctx` with its own runner (the logs of one step) and settings changed as if given on the command line."""
    sources = dict(ctx.settings.sources)
    sources.update({name: SettingSource.of(SourceKind.CLI, f"--{name.replace('_', '-')}") for name in settings})
    changed = dataclasses.replace(ctx.settings, **settings, sources=sources)  # type: ignore[arg-type]
    return dataclasses.replace(ctx, settings=changed, runner=runner)


def rebuild(
    ctx: AppContext, runner: Runner, console: Console | None, said: set[str] | None = None, /, **settings: object
) -> None:
    """Setup's whole pipeline with `settings` changed (a commit to build, a clone, --skip-verify): what
    the workspace has is rebuilt incrementally and installed. The caller holds the workspace lock. `said`:
    what setup said and checked before in this command, not again (a bisect rebuilds at every step)."""
    run_setup(with_settings(ctx, runner, **settings), console, said)


def plan_at(ctx: AppContext, /, **settings: object) -> SetupPlan:
    """Setup's plan with `settings` changed, as a --dry-run makes it: facts read, nothing run or written."""
    dry = dataclasses.replace(ctx, dry_run=True)
    changed = with_settings(dry, ctx.runner.rehearsal().logging_to(None), **settings)
    facts = gather_facts(changed.settings, changed.workspace, changed.runner, changed.target(), dry_run=True)
    return plan_setup(facts)


@dataclass(frozen=True)
class LlvmBisectBuild:
    """What `bisect llvm` builds each LLVM commit with: the workspace's LLVM checkout built in one folder
    for every commit (setup's key without the commit), with setup's recipe; Triton's build beside it."""

    source: Path  # the LLVM checkout the bisect moves
    folder: Path
    presets: Presets
    configure_fingerprint: str  # what the folder's configure was made with (a change configures it again)
    cmake_version: str
    ccache: Tool | None
    remote_env: dict[str, str]  # the team cache's variables
    distcc: DistccBuild | None  # proven once for the whole bisect
    setup_dir: Path  # Triton's setup.py folder
    triton_src: Path
    python_version: str | None  # the target's, which names setup.py's build folder


def llvm_bisect_build(
    ctx: AppContext, triton_commit: str, urls: dict[str, str], console: Console | None
) -> LlvmBisectBuild:
    """The LLVM build of `bisect llvm`, Triton fixed at `triton_commit`: always from source, whatever
    `llvm` the workspace otherwise uses; distcc's hosts proven once here."""
    step = with_settings(ctx, ctx.runner, triton_commit=triton_commit, allow_dirty=True, llvm="source", **urls)
    facts = gather_facts(step.settings, step.workspace, step.runner, step.target(), dry_run=step.dry_run)
    llvm = facts.llvm
    assert isinstance(llvm, LlvmCheckout)  # llvm="source" always observes the LLVM checkout
    tc = facts.toolchain
    if facts.distcc is not None:  # its slots size the compiles
        facts = dataclasses.replace(
            facts,
            distcc=prove(
                ctx.runner, facts.distcc, compilers_of(tc.cc.path, tc.cxx.path), console if not ctx.json else None
            ),
        )
    source = llvm.checkout.path
    era = llvm_era(facts.llvm_projects, facts.pins.layout.version or facts.pins.triton_version, ctx.settings.backend)
    folder = ctx.workspace.build / BISECT_LLVM_FOLDER / llvm_flags_key(ctx.settings.llvm_build_type, era, tc)
    presets = make_presets(preset_inputs(facts, size_for(facts), folder, source))
    configure = fingerprint(
        {
            "cmake": stable(presets.llvm_cache),
            "cmake_version": tc.cmake.version,
            "ccache": tc.ccache.version if tc.ccache else None,
        },
        {},
    )
    python = facts.target.python
    return LlvmBisectBuild(
        source,
        folder,
        presets,
        configure,
        tc.cmake.version,
        tc.ccache,
        dict(facts.remote_env),
        build_for(facts.distcc, None if ctx.dry_run else ctx.workspace.logs),
        facts.setup_dir,
        facts.triton.path,
        python.version if python else None,
    )
