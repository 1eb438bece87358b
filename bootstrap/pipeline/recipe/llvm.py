"""The LLVM build in the recipe: its key and the CMake cache variables it is configured with."""

from __future__ import annotations

import hashlib
import json

from bootstrap.pipeline.host.toolchain import Toolchain
from bootstrap.pipeline.recipe.era import LlvmEra
from bootstrap.pipeline.recipe.inputs import PresetInputs


def llvm_build_key(commit: str, build_type: str, era: LlvmEra, toolchain: Toolchain) -> str:
    """What makes two LLVM builds interchangeable: commit, build type, targets, projects, compiler, linker.

    Not jobs, not ccache, not paths: a build made with any of those is the same build.
    """
    digest = _digest({"commit": commit, **_flags(build_type, era, toolchain)})
    return f"{commit[:8]}-{build_type}-{digest}"


def llvm_flags_key(build_type: str, era: LlvmEra, toolchain: Toolchain) -> str:
    """What makes one folder serve LLVM builds of any commit (a bisect's, rebuilt commit after commit):
    the key of `llvm_build_key` without the commit."""
    return f"{build_type}-{_digest(_flags(build_type, era, toolchain))}"


def _flags(build_type: str, era: LlvmEra, toolchain: Toolchain) -> dict[str, str]:
    ident = toolchain.identity()
    return {
        "build_type": build_type,
        "targets": ";".join(era.targets),
        "projects": ";".join(era.projects),
        "cc": ident["cc"],
        "cxx": ident["cxx"],
        "linker": ident["linker"],
    }


def _digest(parts: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:12]


def llvm_cache_variables(inputs: PresetInputs) -> list[tuple[str, str]]:
    """The LLVM/MLIR configure, as Triton's scripts/build-llvm-project.sh has it, plus what a fast
    developer build wants (clang + lld, ccache as launcher, split DWARF in Debug, link and tablegen job
    pools). Split DWARF only without distcc: a remote compile brings back the object and not its .dwo
    (distcc 3.4), so the debug info of every remotely compiled file would be lost, and ccache would
    keep those objects."""
    tc = inputs.toolchain
    debug = inputs.llvm_build_type == "Debug"
    cache: list[tuple[str, str]] = [
        ("CMAKE_BUILD_TYPE", inputs.llvm_build_type),
        ("LLVM_ENABLE_ASSERTIONS", "ON"),
        # ccache goes in as the compiler launcher below; LLVM's own switch would add a second layer.
        ("LLVM_CCACHE_BUILD", "OFF"),
        ("LLVM_OPTIMIZED_TABLEGEN", "ON"),
        ("MLIR_ENABLE_BINDINGS_PYTHON", "OFF"),
        ("LLVM_ENABLE_ZSTD", "OFF"),
        ("LLVM_TARGETS_TO_BUILD", ";".join(inputs.era.targets)),
        ("CMAKE_EXPORT_COMPILE_COMMANDS", "ON"),
        ("LLVM_ENABLE_PROJECTS", ";".join(inputs.era.projects)),
        # FileCheck, not and split-file: Triton copies FileCheck into its wheel and its lit tests use them.
        ("LLVM_BUILD_UTILS", "ON"),
        ("LLVM_INSTALL_UTILS", "ON"),
        ("CMAKE_C_COMPILER", tc.cc.path),
        ("CMAKE_CXX_COMPILER", tc.cxx.path),
    ]
    if tc.linker == "lld":
        cache.append(("LLVM_ENABLE_LLD", "ON"))
    if tc.ccache is not None:
        cache += [("CMAKE_C_COMPILER_LAUNCHER", tc.ccache.path), ("CMAKE_CXX_COMPILER_LAUNCHER", tc.ccache.path)]
    if debug and not inputs.distcc:
        # Debug info in .dwo files: links read a fraction of it, so they need far less memory and time.
        cache.append(("LLVM_USE_SPLIT_DWARF", "ON"))
    cache.append(("LLVM_PARALLEL_LINK_JOBS", str(inputs.jobs.link)))
    # Tablegen always runs here (never through ccache or distcc): as many at once as local compiles.
    cache.append(("LLVM_PARALLEL_TABLEGEN_JOBS", str(inputs.jobs.tablegen_jobs)))
    return cache
