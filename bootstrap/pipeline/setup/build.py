"""`tritondev build`: ninja in setup's Triton build folder; pip install only when the install is out of date.

Whether it is out of date is setup's own decision for its triton-install step (one record, one
rule: bootstrap.pipeline.setup.plan.reinstall_reasons): a new HEAD (the version names the commit),
setup.py or pyproject.toml changed, another interpreter or build environment, an install that did
not finish, or triton no longer installed from the checkout. Edited C++ files are ninja's business:
an editable install picks the rebuilt library up at once. After a full build the step's record
holds the sources as built, so the next `setup` does not install again for edits `build` built.

With the distcc setting on, the hosts are proven first with the compilers setup built with, and
ninja (or setup.py's, through MAX_JOBS) runs as many compiles as they have slots, behind ccache.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import MismatchError, ToolMissing, UsageError
from bootstrap.core.process.runner import PlannedCommand
from bootstrap.core.settings.distcc_hosts import is_off
from bootstrap.core.suggest import close_matches
from bootstrap.git.moves import inspect_checkout
from bootstrap.pipeline.built.long_commands import run_streamed
from bootstrap.pipeline.built.records import Records, fingerprint
from bootstrap.pipeline.built.state import SetupState, read_state, write_state
from bootstrap.pipeline.built.triton_build import llvm_pin_moved
from bootstrap.pipeline.ccache.remote import remote_env
from bootstrap.pipeline.ccache.stats import CcacheDelta, ccache_counted, remote_failed_notice
from bootstrap.pipeline.distcc.client import DistccBuild, DistccCounts, build_for, observe, trouble_notice
from bootstrap.pipeline.distcc.proof import compilers_of, prove
from bootstrap.pipeline.host.buildtree import triton_cmake_dirs
from bootstrap.pipeline.host.fresh_cache import start_fresh
from bootstrap.pipeline.host.jobs import detect, size_for_build_types
from bootstrap.pipeline.host.sanitizer import check_sanitizer
from bootstrap.pipeline.host.triton_configure import fresh_for_install, setup_py_build_type
from bootstrap.pipeline.recipe.era import BACKENDS_BUILT
from bootstrap.pipeline.recipe.inputs import Command
from bootstrap.pipeline.recipe.triton import ASAN_VARIABLE
from bootstrap.pipeline.setup import target_env as install
from bootstrap.pipeline.setup.execute import commands_of
from bootstrap.pipeline.setup.facts import COMPILER_ENV, TRITON_USER_ENV, ambient
from bootstrap.pipeline.setup.plan import reinstall_reasons
from bootstrap.pipeline.setup.plan_inputs import stable

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext
    from bootstrap.core.process.runner import Runner

_TARGET_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/-]*$")


def check_target(runner: Runner, build_dir: Path, target: str) -> None:
    """A usage error (with close matches) unless `target` is one of the build folder's ninja targets."""
    if not _TARGET_RE.match(target):
        raise UsageError(f"--target {target!r} is not a ninja target name", fix="e.g. --target triton-opt")
    listing = runner.capture(["ninja", "-C", str(build_dir), "-t", "targets", "all"], step="build-probe", check=False)
    names = {line.split(":", 1)[0] for line in listing.stdout.splitlines() if ":" in line}
    if names and target not in names:
        close = close_matches(target, sorted(names), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(
            f"no ninja target {target!r} in {build_dir}{hint}",
            fix=f"list them with: ninja -C {build_dir} -t targets all",
        )


def with_sanitizer(install: Command, sanitize: str | None) -> Command:
    """setup's pip install command with TRITON_BUILD_WITH_ASAN as the `sanitize` setting says."""
    env = [(k, v) for k, v in install.env if k != ASAN_VARIABLE]
    if sanitize == "address":
        env.append((ASAN_VARIABLE, "1"))
    return dataclasses.replace(install, env=tuple(env))


def install_inputs_now(ctx: AppContext, state: SetupState, recorded: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """triton-install's inputs as they are now (what `build` can see; the rest as recorded), and whether
    triton is still installed from the checkout."""
    ctx.use_interpreter(state.python, state.python_origin)
    target = ctx.target_python()
    head, dirty, _ = inspect_checkout(state.triton_src, state.triton_commit, ctx.runner, "build-probe")
    observed = {
        "python": str(state.python),
        "version": target.version,
        "head": head,
        "edits": install.file_state(state.triton_src, dirty),
        "setup_files": install.setup_files_digest(state.setup_dir),
        "environment": ambient(COMPILER_ENV + TRITON_USER_ENV),
    }
    return {**recorded, **observed}, install.own_install_present(target.site_packages, state.setup_dir)


def install_if_needed(
    ctx: AppContext,
    state: SetupState,
    console: Console | None,
    extra_env: Mapping[str, str | None],
    install: Command | None = None,
) -> list[str]:
    """Run setup's pip install (or `install`, setup's with other variables) when the install is out of
    date; the reasons (empty: it was not)."""
    records = Records(ctx.workspace.state)
    record = records.load("triton-install")
    current, installed = install_inputs_now(ctx, state, dict(record.inputs) if record else {})
    if install is not None and install != state.install:
        current["env"] = stable(install.env)
    install = install or state.install
    reasons = reinstall_reasons(record, current, installed)
    finished = record is not None and record.finished
    if finished and not reasons and record is not None and fingerprint(current, record.after) == record.fingerprint:
        return []
    if reasons:
        if not ctx.dry_run:
            records.started("triton-install")
        run_streamed(ctx.runner, install, "Triton install", console, show_progress=not ctx.json, extra_env=extra_env)
    if finished and record is not None and not ctx.dry_run:
        records.finished("triton-install", current, record.after)  # the sources as built now
    return reasons


def reinstall_with_flags(
    ctx: AppContext,
    state: SetupState,
    install: Command,
    build_dir: Path,
    console: Console | None,
    extra_env: Mapping[str, str | None],
    summary: list[str],
) -> list[str]:
    """setup's install with other compile flags (another sanitizer): from a fresh CMake cache when the
    folder's holds the old ones (bootstrap.pipeline.host.fresh_cache); the new install becomes setup's."""
    variables = dict(install.env)
    check_sanitizer(
        ctx.runner,
        variables.get("CXX", "c++"),
        variables.get("TRITON_BUILD_WITH_CLANG_LLD") == "1",
        ctx.settings.sanitize,
    )
    ccache = state.ccache.path if state.ccache else None
    fresh = fresh_for_install(variables, install.unset, build_dir, state.triton_src, ccache, ";".join(BACKENDS_BUILT))
    if fresh is not None:  # setup.py passes the sanitizer flags only when set: the old ones would stay
        summary.append(f"fresh CMake cache for {fresh.notice()}")
        if not ctx.dry_run:
            start_fresh(fresh.folder)
    reasons = install_if_needed(ctx, state, console, extra_env, install)
    if not ctx.dry_run:
        write_state(ctx.workspace.state, dataclasses.replace(state, install=install))
    return reasons


@dataclass(frozen=True)
class NinjaCounts:
    """ccache's (and distcc's) figures over the ninja run of `build`: None where the tool was not there."""

    ccache: CcacheDelta | None
    distcc: DistccCounts | None = None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"ccache": {"Triton build": self.ccache.to_json()} if self.ccache is not None else {}}
        if self.distcc is not None:
            data["distcc"] = {"Triton build": self.distcc.to_json()}
        return data


@dataclass(frozen=True)
class BuildResult:
    """What `tritondev build` did: its target, why it reinstalled (if it did), the commands it ran, the
    ccache/distcc figures and the lines it says."""

    workspace: Path
    build_dir: Path
    target: str | None
    reasons: list[str]  # why Triton was installed again; empty: the editable install was kept
    commands: list[PlannedCommand]
    counts: NinjaCounts | None  # None: ninja did not run by itself (setup.py's install built everything)
    summary: list[str]

    def to_json(self) -> dict[str, object]:
        return {
            "workspace": str(self.workspace),
            "build_dir": str(self.build_dir),
            "target": self.target,
            "reinstalled": bool(self.reasons),
            "reasons": self.reasons,
            "commands": [c.to_json() for c in self.commands],
            **(self.counts.to_json() if self.counts is not None else {}),
            "summary": self.summary,
        }


def run_build(ctx: AppContext, target: str | None, console: Console | None) -> BuildResult:
    """ninja in setup's Triton build folder (optionally one target); pip install only when needed."""
    ws = ctx.workspace
    state = read_state(ws.state)
    if state is None:
        raise UsageError(f"no finished `tritondev setup` in workspace {ws.root}", fix="run `tritondev setup` first")
    dirs = triton_cmake_dirs(state.setup_dir)
    if not dirs:
        raise UsageError(
            f"no Triton build folder (build/cmake.*/build.ninja) under {state.setup_dir}",
            fix="run `tritondev setup` (it builds Triton once; `build` then rebuilds incrementally)",
        )
    build_dir = dirs[0]
    moved = llvm_pin_moved(state)
    if moved is not None:  # never "install unchanged" against the old LLVM
        raise MismatchError(moved.message(), fix=moved.fix)
    if target is not None:
        check_target(ctx.runner, build_dir, target)
    first = len(ctx.runner.history)
    how = BuildEnv(
        remote_env(ctx.settings.ccache_remote, state.ccache, ws.root), *distcc_for_build(ctx, state, console)
    )
    install = state.install
    if ctx.settings.source_of("sanitize").given:  # else the sanitizer setup built with stays
        install = with_sanitizer(state.install, ctx.settings.sanitize)
    summary: list[str] = []
    counts: NinjaCounts | None = None
    if install != state.install:
        # Other compile flags: setup.py configures and builds everything again, whatever the target.
        reasons = reinstall_with_flags(ctx, state, install, build_dir, console, how.env("triton-install"), summary)
        target = None
    else:
        counts = _ninja(ctx, state, build_dir, target, console, how, summary)
        reasons = install_if_needed(ctx, state, console, how.env("triton-install")) if target is None else []
    summary.append(f"built {target or 'all targets'} in {build_dir}")
    summary.append("reinstalled: " + "; ".join(reasons) if reasons else "install unchanged (editable install)")
    return BuildResult(ws.root, build_dir, target, reasons, commands_of(ctx.runner.history[first:]), counts, summary)


@dataclass(frozen=True)
class BuildEnv:
    """What `build`'s commands run with besides their own variables: the team cache, distcc and its jobs."""

    remote: dict[str, str]
    distcc: DistccBuild | None = None
    jobs: int | None = None  # compile jobs sized from the distcc hosts

    def env(self, step: str) -> dict[str, str | None]:
        env: dict[str, str | None] = dict(self.remote)
        if self.distcc is not None:
            env.update(self.distcc.env(step))
        if self.jobs is not None:
            env["MAX_JOBS"] = str(self.jobs)  # setup.py's ninja -j
        return env


def _ninja(
    ctx: AppContext,
    state: SetupState,
    build_dir: Path,
    target: str | None,
    console: Console | None,
    how: BuildEnv,
    summary: list[str],
) -> NinjaCounts:
    """ninja in the build folder, counted by ccache (and distcc); the counts for the JSON document."""
    jobs = str(how.jobs) if how.jobs is not None else dict(state.install.env).get("MAX_JOBS", "1")
    ninja = Command("triton-build", ("ninja", "-C", str(build_dir), "-j", jobs, *([target] if target else [])))
    done: list[DistccCounts | None] = []

    def build() -> None:
        def run() -> None:
            run_streamed(
                ctx.runner,
                ninja,
                f"Triton {target or 'build'}",
                console,
                show_progress=not ctx.json,
                extra_env=how.env(ninja.step),
            )

        if how.distcc is None:
            run()
        else:
            done.append(how.distcc.counted(ninja.step, run))

    counts = ccache_counted(ctx.runner, state.ccache, build)
    if counts is not None:
        summary.append(f"Triton build: {counts.describe()}")
        if counts.remote_errors:
            summary.append(remote_failed_notice("Triton build", counts.remote_errors))
    where = done[0] if done else None
    if where is not None:
        summary.append(f"Triton build: {where.describe()}")
        if where.troubled:
            summary.append(trouble_notice("Triton build", where))
    return NinjaCounts(counts, where)


def distcc_for_build(
    ctx: AppContext, state: SetupState, console: Console | None
) -> tuple[DistccBuild | None, int | None]:
    """distcc for `build` when its setting is on: the hosts proven with the compilers setup built with,
    and the compile jobs sized from their slots."""
    if is_off(ctx.settings.distcc):
        return None, None
    if state.ccache is None:
        raise ToolMissing(
            "distcc runs behind ccache (its prefix command), and this workspace's Triton was built without ccache",
            fix="install ccache and run `tritondev setup` again, or pass --distcc none",
        )
    setup = observe(ctx.settings, True)
    assert setup is not None
    variables = dict(state.install.env)
    compilers = compilers_of(variables.get("CC", "cc"), variables.get("CXX", "c++"))
    proven = prove(ctx.runner, setup, compilers, console if not ctx.json else None)
    build_type = setup_py_build_type(variables)
    slots = proven.hosts.slots
    jobs = size_for_build_types(detect(), build_type, build_type, jobs=ctx.settings.jobs, distcc_slots=slots)
    return build_for(proven, None if ctx.dry_run else ctx.workspace.logs), jobs.compile
