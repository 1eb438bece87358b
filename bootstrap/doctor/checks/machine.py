"""Resources: cores, memory per build job, free disk for the chosen build types."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bootstrap.doctor.checks.workspace import llvm_builds
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.model import Outcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.pipeline.jobs import disk_needed

GIB = 1024**3


def existing_ancestor(path: Path) -> Path:
    for folder in (path, *path.parents):
        if folder.exists():
            return folder
    return Path("/")


@check("resources.cores", "CPU cores available to builds")
def cores(facts: Facts) -> Outcome:
    from bootstrap.pipeline.jobs import detect

    res = detect()
    total = os.cpu_count() or res.cpus
    shown = f"{res.cpus} usable cores" + (f" of {total}" if total != res.cpus else "")
    if res.cpus < 2:
        return warn(
            f"{shown}: an LLVM build takes many hours on one core",
            "build on a machine with more cores, or share build results: TRITONDEV_CCACHE_REMOTE=redis://...",
        )
    return ok(shown)


@check("resources.memory", "memory per build job")
def memory(facts: Facts) -> Outcome:
    from bootstrap.pipeline.jobs import COMPILE_MEMORY, LINK_MEMORY, detect, size_jobs

    settings = facts.ctx.settings
    res = detect()
    build_type = settings.llvm_build_type
    jobs = size_jobs(res, build_type, jobs=settings.jobs, link_jobs=settings.link_jobs)
    per_job = res.mem_available / jobs.compile / GIB
    shown = f"{res.mem_available / GIB:.1f} GiB available, {jobs.compile} jobs -> {per_job:.1f} GiB per job"
    need = COMPILE_MEMORY[build_type] / GIB
    if res.mem_available < LINK_MEMORY[build_type]:
        return error(
            f"only {res.mem_available / GIB:.1f} GiB available: one {build_type} link needs about"
            f" {LINK_MEMORY[build_type] / GIB:g} GiB",
            "free memory or add swap; or build LLVM as Release: --llvm-build-type Release",
        )
    if per_job < need:
        safe = max(1, int(res.mem_available // COMPILE_MEMORY[build_type]))
        return warn(
            f"{shown}: below the ~{need:g} GiB a {build_type} compile needs; the build may be OOM-killed",
            f"export TRITONDEV_JOBS={safe}",
            jobs.reason,
        )
    return ok(shown, jobs.reason)


@check("resources.disk", "free disk for the chosen build types")
def disk(facts: Facts) -> Outcome:
    settings = facts.ctx.settings
    workspace = facts.ctx.workspace
    # --llvm prebuilt or PATH: no LLVM is built here.
    llvm_built = bool(llvm_builds(workspace.build)) or settings.llvm != "source"
    need = disk_needed(settings.build_type, settings.llvm_build_type, llvm_built)
    where = existing_ancestor(workspace.root)
    free = shutil.disk_usage(where).free / GIB
    shown = (
        f"{free:.0f} GiB free at {where}; a {settings.build_type} Triton"
        + ("" if llvm_built else f" + {settings.llvm_build_type} LLVM")
        + f" build needs about {need} GiB"
    )
    if free < need:
        fix = (
            "free space, or choose another workspace: --workspace DIR"
            + ("" if settings.build_type == "Release" else "; or a smaller build: --build-type Release")
        )
        outcome = error if free < need / 2 else warn
        return outcome(shown, fix)
    return ok(shown)
