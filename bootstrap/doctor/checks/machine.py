"""Resources: cores, memory per build job, free disk for the chosen build types."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import MismatchError, TritondevError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.settings.values import LlvmAuto, LlvmFromSource, LlvmSource
from bootstrap.doctor.checks.workspace import llvm_builds
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.git.layout import LLVM_INFO, llvm_pin, setup_py_dir
from bootstrap.git.setup_py import read_setup_py_args
from bootstrap.pipeline.host.jobs import (
    detect,
    disk_needed,
    hungriest,
    memory_allows,
    per_compile,
    per_link,
    size_for_settings,
)
from bootstrap.pipeline.llvm.auto import no_package_reason, plan_auto, read_memory
from bootstrap.pipeline.llvm.package import package_for
from bootstrap.pipeline.llvm.suffix import detect_host

if TYPE_CHECKING:
    from bootstrap.pipeline.llvm.auto import AutoDecision

GIB = 1024**3


def existing_ancestor(path: Path) -> Path:
    for folder in (path, *path.parents):
        if folder.exists():
            return folder
    return Path("/")


@check("resources.cores", "CPU cores available to builds")
def cores(facts: Facts) -> CheckOutcome:
    res = detect()
    total = res.machine_cpus or res.cpus
    shown = f"{res.cpus} usable cores" + (f" of {total}" if total != res.cpus else "")
    if res.cpus < 2:
        return warn(
            f"{shown}: an LLVM build takes many hours on one core",
            "build on a machine with more cores, or share build results: TRITONDEV_CCACHE_REMOTE=redis://...",
        )
    return ok(shown)


@check("resources.memory", "memory per build job")
def memory(facts: Facts) -> CheckOutcome:
    """The jobs setup would run with (the one sizing, bootstrap.pipeline.host.jobs), against the memory
    a job of the hungrier build type takes."""
    settings = facts.ctx.settings
    res = detect()
    build_type = hungriest(settings.build_type, settings.llvm_build_type)
    jobs = size_for_settings(settings, res)
    per_job = res.mem_available / jobs.compile / GIB
    shown = f"{res.mem_available / GIB:.1f} GiB available, {jobs.compile} jobs -> {per_job:.1f} GiB per job"
    need = per_compile(build_type) / GIB
    lighter = " ".join(
        f"{option} Release"
        for option, name in (("--build-type", "build_type"), ("--llvm-build-type", "llvm_build_type"))
        if getattr(settings, name) == build_type
    )
    if res.mem_available < per_link(build_type):
        return error(
            f"only {res.mem_available / GIB:.1f} GiB available: one {build_type} link needs about"
            f" {per_link(build_type) / GIB:g} GiB",
            f"free memory or add swap; or build as Release: {lighter}",
        )
    if per_job < need:
        return warn(
            f"{shown}: below the ~{need:g} GiB a {build_type} compile needs; the build may be OOM-killed",
            f"export TRITONDEV_JOBS={memory_allows(res, build_type)}",
            jobs.reason,
        )
    return ok(shown, jobs.reason)


@dataclass(frozen=True)
class LlvmHere:
    """Whether setup builds LLVM in this workspace, as far as is known here."""

    built: bool | None  # None: --llvm auto has not decided for this pin yet (it asks the package host)
    why: str  # "" when there is nothing to say


def llvm_here(llvm: LlvmSource, have_build: bool, decision: AutoDecision | None, pin: str | None) -> LlvmHere:
    """The LLVM part of the estimate. Pure. decision: what --llvm auto decides for `pin` from what this
    workspace knows (state/llvm-auto.json); None when it would still have to ask the host."""
    if have_build:
        return LlvmHere(False, "an LLVM build is already here")
    if isinstance(llvm, LlvmFromSource):
        return LlvmHere(True, "")
    if not isinstance(llvm, LlvmAuto):
        return LlvmHere(False, "")  # prebuilt, or an LLVM build of yours (PATH)
    if decision is None:
        return LlvmHere(
            None,
            f"--llvm auto decides at setup{f' for LLVM {pin[:12]}' if pin else ''}: Triton's"
            " package when its host has one, else a source build",
        )
    built = decision.choice == "source"
    return LlvmHere(
        built,
        f"--llvm auto: {'a source build' if built else 'the prebuilt package'} for LLVM"
        f" {(pin or '?')[:12]} ({decision.why})",
    )


def disk_outcome(free: float, where: Path, build_type: str, llvm_build_type: str, llvm: LlvmHere) -> CheckOutcome:
    """The disk check over a free size (GiB) and what is known of the LLVM build. Pure."""
    without = disk_needed(build_type, llvm_build_type, True)
    with_llvm = disk_needed(build_type, llvm_build_type, False)
    why = f" ({llvm.why})" if llvm.why else ""
    if llvm.built is None:
        shown = (
            f"{free:.0f} GiB free at {where}; a {build_type} Triton build needs about {without} GiB with a"
            f" prebuilt LLVM, {with_llvm} GiB with a {llvm_build_type} LLVM built here{why}"
        )
    else:
        shown = (
            f"{free:.0f} GiB free at {where}; a {build_type} Triton"
            + (f" + {llvm_build_type} LLVM" if llvm.built else "")
            + f" build needs about "
            f"{with_llvm if llvm.built else without} GiB{why}"
        )
    need = without if llvm.built is False else with_llvm
    if free >= need:
        return ok(shown)
    smaller = "" if build_type == "Release" else "; or a smaller build: --build-type Release"
    if llvm.built is None and free >= without:
        return warn(
            shown + ": enough unless LLVM is built here",
            "free space, or take Triton's package: --llvm prebuilt (fails where there is none)" + smaller,
        )
    fix = "free space, or choose another workspace: --workspace DIR" + smaller
    return (error if free < need / 2 else warn)(shown, fix)


def _auto_decision(facts: Facts) -> tuple[AutoDecision | None, str | None]:
    """What --llvm auto decides for the workspace's Triton as it is on disk, from this workspace's
    memory alone (no request); (None, pin) when it would ask the package host."""

    settings, workspace = facts.ctx.settings, facts.ctx.workspace
    checkout = Path(settings.triton_src) if settings.triton_src else workspace.triton_src

    def read(path: str) -> str | None:
        try:
            return read_regular_text(checkout / path, limit=1 << 20)
        except OSError:
            return None

    try:
        pin = llvm_pin(read)[1]
        rules = read_setup_py_args(read, setup_py_dir(read))
    except TritondevError:  # no checkout yet, or not one of a Triton this setup builds
        return None, None
    url, no_package = None, ""
    try:
        url = package_for(read(LLVM_INFO), pin, rules, detect_host(), facts.environ, settings.llvm_prebuilt_url).url
    except MismatchError as exc:
        no_package = no_package_reason(exc)
    decision = plan_auto(
        pin=pin,
        url=url,
        no_package=no_package,
        offline=settings.offline,
        url_given=settings.source_of("llvm_prebuilt_url").given,
        memory=read_memory(workspace.state),
    )
    return (None if decision.ask else decision), pin


@check("resources.disk", "free disk for the chosen build types")
def disk(facts: Facts) -> CheckOutcome:
    settings = facts.ctx.settings
    workspace = facts.ctx.workspace
    asked = settings.llvm_source
    decision, pin = _auto_decision(facts) if isinstance(asked, LlvmAuto) else (None, None)
    llvm = llvm_here(asked, bool(llvm_builds(workspace.build)), decision, pin)
    where = existing_ancestor(workspace.root)
    free = shutil.disk_usage(where).free / GIB
    return disk_outcome(free, where, settings.build_type, settings.llvm_build_type, llvm)
