"""The LLVM step of `--llvm prebuilt` (llvm-download) and `--llvm PATH` (llvm-use), in place of
llvm-configure and llvm-build; and what setup says before a source build starts.

llvm-download: the package is downloaded (bootstrap.pipeline.download: sha256 checked before
anything is unpacked), unpacked member by member into a staging folder (bootstrap.pipeline.
llvm_archive), proven to run on this machine (its tools start: an old glibc or libstdc++ is the
known failure), stamped, moved into <workspace>/build/llvm/<package name> and registered, so that
another workspace links to it instead of downloading it again. A verified archive whose unpacking
was cut short is unpacked again without a download.

llvm-use: nothing runs; the tree was checked when the facts were gathered (llvm_source.judge_tree).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import ExternalError, MismatchError, ToolMissing, WouldLoseData
from bootstrap.core.redact import redact
from bootstrap.pipeline import llvm_builds
from bootstrap.pipeline.download import NotOnServer, download
from bootstrap.pipeline.jobs import LLVM_DISK, Jobs, Resources, llvm_build_hours
from bootstrap.pipeline.llvm_archive import remove_staging, staging_folder, unpack
from bootstrap.pipeline.llvm_source import PATH, LlvmSourceFacts, Package

if TYPE_CHECKING:
    from bootstrap.core.runner import Runner
    from bootstrap.pipeline.execute import Execution
    from bootstrap.pipeline.plan import PlannedStep

# The step whose fingerprint triton-install depends on, whichever LLVM source is used.
LLVM_STEPS = ("llvm-build", "llvm-download", "llvm-use")
# Tools of a package that must start here: llvm-config, and mlir-tblgen, which Triton's own build
# runs first (where a package built for a newer glibc fails: `GLIBC_2.33' not found).
PROVEN_TOOLS = ("llvm-config", "mlir-tblgen", "FileCheck")


def observe_folders(llvm_dir: Path, source: LlvmSourceFacts) -> llvm_builds.LlvmFolders:
    """What is on disk for a package (this workspace's folder, a link, other workspaces'), or the tree."""
    if source.package is not None:
        mine = llvm_dir / source.package.name
        return llvm_builds.observe(mine, mine)
    assert source.tree is not None
    return llvm_builds.LlvmFolders(source.tree.path, None, None)


def prebuilt_or_tree_location(source: LlvmSourceFacts, folders: llvm_builds.LlvmFolders) -> llvm_builds.LlvmLocation:
    if source.package is not None:
        return llvm_builds.locate_package(folders, source.package)
    assert source.tree is not None
    # reused_from: a tree of the user's own, where setup writes nothing.
    return llvm_builds.LlvmLocation(source.tree.path, source.tree.path, f"--llvm {source.tree.path}", {}, True,
                                    kind=PATH)


@dataclass(frozen=True)
class StepDecision:
    name: str
    inputs: Mapping[str, Any]  # no paths of this workspace: the same package anywhere is the same input
    done: bool
    reason: str


def prebuilt_or_tree_step(source: LlvmSourceFacts, where: llvm_builds.LlvmLocation) -> StepDecision:
    """The llvm-download or llvm-use step: what it depends on, and whether it has anything to do. Pure."""
    if source.package is not None:
        package = source.package
        inputs = {"package": package.name, "sha256": package.sha256, "llvm_hash": package.llvm_hash}
        if where.reused_from:
            return StepDecision("llvm-download", inputs, True,
                                f"package {package.name} reused from {where.reused_from}")
        if where.configured:
            checked = "sha256 checked" if package.sha256 else "no sha256 published"
            return StepDecision("llvm-download", inputs, True, f"package {package.name} in place ({checked})")
        return StepDecision("llvm-download", inputs, False, f"package {package.name} not here yet")
    assert source.tree is not None
    tree = source.tree
    inputs = {"path": str(tree.path), "revision": tree.revision}
    return StepDecision("llvm-use", inputs, True, f"LLVM {str(tree.revision)[:12]} at {tree.path} (--llvm PATH)")


def source_build_cost(resources: Resources, jobs: Jobs, llvm_build_type: str, *, offer_prebuilt: bool = True) -> str:
    """What a cold LLVM source build costs here, and the way around it (shown before it starts)."""
    hours = llvm_build_hours(jobs.compile, llvm_build_type)
    took = f"about {hours * 60:.0f} minutes" if hours < 1.5 else f"about {hours:.1f} hours"
    other = (" `--llvm prebuilt` uses Triton's own package for this pin instead (a download of minutes);"
             if offer_prebuilt else "")
    return (f"LLVM/MLIR is built from source: {took} with {jobs.compile} compile jobs ({resources.cpus} cores,"
            f" {resources.mem_available / 2**30:.0f} GiB free; much less with a warm ccache) and about"
            f" {LLVM_DISK.get(llvm_build_type, 60)} GiB of disk for a {llvm_build_type} build.{other}"
            " see docs/llvm-sources.md")


def prove_runs(runner: Runner, folder: Path) -> str:
    """Start the package's tools here: the first one's answer ("llvm-config 19.1.0git"), or ExternalError
    saying why they do not run."""
    first = ""
    for name in PROVEN_TOOLS:
        tool = folder / "bin" / name
        if not tool.is_file():
            continue
        try:
            said = runner.run([str(tool), "--version"], step="llvm-download", probe=True, check=False, timeout=120)
        except ToolMissing as exc:
            raise _does_not_run(folder, exc.message) from None
        if not said.ok:
            lines = (said.stderr + "\n" + said.stdout).strip().splitlines()
            raise _does_not_run(folder, lines[0] if lines else f"{name} --version exited {said.returncode}")
        answer = said.stdout.strip().splitlines()
        first = first or f"{name} {answer[0].strip() if answer else ''}".strip()
    if not first:
        raise _does_not_run(folder, f"none of {', '.join(PROVEN_TOOLS)} is in its bin/")
    return first


def _does_not_run(folder: Path, why: str) -> ExternalError:
    return ExternalError(
        f"the prebuilt LLVM {folder.name} does not run on this machine: {why}",
        fix="build LLVM from source: --llvm source (an older glibc or libstdc++ than the package's is the usual"
        " cause; for Triton >= 3.5 TRITON_LLVM_SYSTEM_SUFFIX=almalinux-x64 picks the manylinux_2_28 package)")


def _fetch(run: Execution, package: Package, archive: Path) -> dict[str, object]:
    """The verified archive at `archive` (downloaded unless an earlier run left it verified)."""
    if archive.is_file():
        return {"archive": str(archive), "received": 0, "note": "verified archive of an earlier run unpacked again"}
    console = None if run.ctx.json else run.console
    try:
        got = download(package.url, archive, sha256=package.sha256, console=console, label=f"LLVM {package.name}")
    except NotOnServer as exc:
        pins = run.facts.pins
        raise MismatchError(
            f"there is no prebuilt LLVM for this pin: Triton {pins.triton_commit[:12]} pins LLVM"
            f" {package.llvm_hash[:12]}, and {redact(package.url)} answers HTTP {exc.status}"
            + (" (a retired host)" if exc.status == 409 else ""),
            fix="build LLVM from source: --llvm source (or point --llvm-prebuilt-url at a mirror that has it)",
        ) from None
    return {"archive": str(archive), "size": got.size, "received": got.received, "resumed_from": got.resumed_from,
            "attempts": got.attempts, "sha256": got.sha256}


def _remove_older_unpacking(folder: Path) -> None:
    """An older unpacking of ours goes (its stamp says it is a prebuilt package tritondev unpacked); a folder
    of that name without it is not ours and stops the step (exit 6), left as it is."""
    stamp = llvm_builds.read_site(folder, None).stamp
    if stamp.get("kind") != llvm_builds.PREBUILT_KIND:
        raise WouldLoseData(f"{folder} is in the way of the LLVM package and is not one tritondev unpacked; it is"
                            " left alone", fix=f"move {folder} away, then run the command again")
    shutil.rmtree(folder)


def run_download(run: Execution, step: PlannedStep) -> str | None:
    package = run.facts.llvm_source.package
    if package is None or run.dry_run:
        return None
    if run.facts.llvm_source.auto is None:
        return _download(run, package)
    from bootstrap.pipeline.llvm_auto import PrebuiltUnavailable

    try:
        return _download(run, package)
    except (ExternalError, MismatchError) as exc:  # auto: never worse than --llvm source
        raise PrebuiltUnavailable(package.url, exc.message) from None


def _download(run: Execution, package: Package) -> str | None:
    folder = run.plan.llvm.build
    archive = folder.parent / package.archive
    run.report.llvm["download"] = _fetch(run, package, archive)
    unpacked = unpack(archive, folder.parent, package.name)
    try:
        version = prove_runs(run.runner, unpacked)
        llvm_builds.write_stamp(unpacked, {
            "kind": llvm_builds.PREBUILT_KIND, "package": package.name, "sha256": package.sha256,
            "url": redact(package.url), "llvm_hash": package.llvm_hash, "build_number": package.build_number,
            "suffix": package.suffix, "runs": version,
        })
        if folder.is_symlink():
            folder.unlink()  # a link to another workspace's build: only the link goes
        elif folder.exists():
            _remove_older_unpacking(folder)
        os.replace(unpacked, folder)
    finally:
        remove_staging(staging_folder(folder.parent, package.name))
    archive.unlink(missing_ok=True)  # gigabytes; the unpacked folder is what is kept
    llvm_builds.register(package.name, folder.resolve(), folder.resolve())
    return None


def run_use(run: Execution, step: PlannedStep) -> str | None:
    return step.reason  # the tree was judged with the facts; nothing to run


HANDLERS: dict[str, Callable[[Execution, PlannedStep], str | None]] = {
    "llvm-download": run_download,
    "llvm-use": run_use,
}
