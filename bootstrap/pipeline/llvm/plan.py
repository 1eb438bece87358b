"""The LLVM step of `--llvm prebuilt` (llvm-download) and `--llvm PATH` (llvm-use), in place of
llvm-configure and llvm-build; and what setup says before a source build starts.

llvm-download: the package is downloaded (bootstrap.pipeline.llvm.download: sha256 checked before
anything is unpacked), unpacked member by member into a staging folder (bootstrap.pipeline.
llvm_archive), proven to run on this machine (its tools start: an old glibc or libstdc++ is the
known failure), stamped, moved into <workspace>/build/llvm/<package name> and registered, so that
another workspace links to it instead of downloading it again. A verified archive whose unpacking
was cut short is unpacked again without a download.

llvm-use: nothing runs; the tree was checked when the facts were gathered (llvm_source.judge_tree).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.pipeline.host.jobs import LLVM_DISK, Jobs, Resources, llvm_build_hours
from bootstrap.pipeline.llvm import builds as llvm_builds
from bootstrap.pipeline.llvm.source import PrebuiltPackage, UserTree

# The step whose fingerprint triton-install depends on, whichever LLVM source is used.
LLVM_STEPS = ("llvm-build", "llvm-download", "llvm-use")


def observe_folders(llvm_dir: Path, use: PrebuiltPackage | UserTree) -> llvm_builds.LlvmFolders:
    """What is on disk for a package (this workspace's folder, a link, other workspaces'), or the tree."""
    match use:
        case PrebuiltPackage(package=package):
            mine = llvm_dir / package.name
            return llvm_builds.observe(mine, mine)
        case UserTree(tree=tree):
            return llvm_builds.LlvmFolders(tree.path, None, None)


def prebuilt_or_tree_location(
    use: PrebuiltPackage | UserTree, folders: llvm_builds.LlvmFolders
) -> llvm_builds.LlvmLocation:
    match use:
        case PrebuiltPackage(package=package):
            return llvm_builds.locate_package(folders, package)
        case UserTree(tree=tree):
            # reused_from: a tree of the user's own, where setup writes nothing.
            return llvm_builds.LlvmLocation(tree.path, tree.path, f"--llvm {tree.path}", {}, True)


@dataclass(frozen=True)
class StepDecision:
    name: str
    inputs: Mapping[str, Any]  # no paths of this workspace: the same package anywhere is the same input
    done: bool
    reason: str


def prebuilt_or_tree_step(use: PrebuiltPackage | UserTree, where: llvm_builds.LlvmLocation) -> StepDecision:
    """The llvm-download or llvm-use step: what it depends on, and whether it has anything to do. Pure."""
    match use:
        case PrebuiltPackage(package=package):
            inputs = {"package": package.name, "sha256": package.sha256, "llvm_hash": package.llvm_hash}
            if where.reused_from:
                return StepDecision(
                    "llvm-download", inputs, True, f"package {package.name} reused from {where.reused_from}"
                )
            if where.configured:
                checked = "sha256 checked" if package.sha256 else "no sha256 published"
                return StepDecision("llvm-download", inputs, True, f"package {package.name} in place ({checked})")
            return StepDecision("llvm-download", inputs, False, f"package {package.name} not here yet")
        case UserTree(tree=tree):
            inputs = {"path": str(tree.path), "revision": tree.revision}
            return StepDecision(
                "llvm-use", inputs, True, f"LLVM {str(tree.revision)[:12]} at {tree.path} (--llvm PATH)"
            )


def source_build_cost(resources: Resources, jobs: Jobs, llvm_build_type: str, *, offer_prebuilt: bool = True) -> str:
    """What a cold LLVM source build costs here, and the way around it (shown before it starts)."""
    hours = llvm_build_hours(jobs.compile, llvm_build_type)
    took = f"about {hours * 60:.0f} minutes" if hours < 1.5 else f"about {hours:.1f} hours"
    other = (
        " `--llvm prebuilt` uses Triton's own package for this pin instead (a download of minutes);"
        if offer_prebuilt
        else ""
    )
    return (
        f"LLVM/MLIR is built from source: {took} with {jobs.compile} compile jobs ({resources.cpus} cores,"
        f" {resources.mem_available / 2**30:.0f} GiB free; much less with a warm ccache) and about"
        f" {LLVM_DISK.get(llvm_build_type, 60)} GiB of disk for a {llvm_build_type} build.{other}"
        " see docs/llvm-sources.md"
    )


# What works when the LLVM repository cannot be reached (offline, a proxy, a firewall): said with a
# failed LLVM fetch, after git's own "check that it is reachable".
WITHOUT_THE_NETWORK = (
    "without the network: --mirror DIR (a folder of bare mirrors holding llvm-project.git), "
    "--llvm-url URL (a copy you can reach, a local path too), --llvm PATH (an LLVM build you "
    "have), or --llvm prebuilt --llvm-prebuilt-url URL (Triton's package from a server you can "
    "reach)"
)


def unreachable_llvm_fix(fix: str | None) -> str:
    """A failed LLVM fetch's fix, with the ways that work offline."""
    return f"{fix}; {WITHOUT_THE_NETWORK}" if fix else WITHOUT_THE_NETWORK
