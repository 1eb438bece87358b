"""What Triton's configure requires of an LLVM tree given with `--llvm PATH`, by Triton version, beyond
what every era needs (bootstrap.pipeline.llvm.source.check_contents): checked before anything is built,
so a tree that lacks it is refused with what is missing instead of failing in CMake later.

Upstream: third_party/amd/CMakeLists.txt finds lld's package from #7548 (3.5 on);
third_party/nvidia/CMakeLists.txt finds ${LLVM_SYSPATH}/bin/clang++ for the GSan runtime from #9568
(3.7 on). docs/test-world.md (conformance table) cites both.
"""

from __future__ import annotations

from pathlib import Path

from bootstrap.pipeline.recipe.era import version_key

# What Triton's configure requires of its LLVM tree from a version on (path in the tree, why).
ERA_REQUIREMENTS: tuple[tuple[tuple[int, int], str, str], ...] = (
    ((3, 5), "lib/cmake/lld/LLDConfig.cmake",
     "the AMD backend's find_package(LLD REQUIRED CONFIG PATHS ${LLD_DIR}) (Triton 3.5 on; LLVM_ENABLE_PROJECTS"
     " with lld)"),
    ((3, 7), "bin/clang++",
     "the NVIDIA backend's find_program(TRITON_GSAN_CLANGXX clang++ PATHS ${LLVM_SYSPATH}/bin REQUIRED)"
     " (Triton 3.7 on; LLVM_ENABLE_PROJECTS with clang)"),
)


def era_missing(path: Path, triton_version: str | None) -> list[str]:
    """What Triton `triton_version`'s configure requires of the LLVM tree at `path` that is not there."""
    key = version_key(triton_version)
    return [f"{rel}, for {why}" for since, rel, why in ERA_REQUIREMENTS
            if key >= since and not (path / rel).exists()]
