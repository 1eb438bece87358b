"""What Triton's configure requires of an LLVM tree given with `--llvm PATH`, beyond what every era needs
(bootstrap.pipeline.llvm.source.check_contents): checked before anything is built, so a tree that lacks
it is refused with what is missing instead of failing in CMake later.

Upstream: third_party/amd/CMakeLists.txt finds lld's package from #7548 (`find_package(LLD REQUIRED
...)`, 3.5 on); third_party/nvidia/CMakeLists.txt finds ${LLVM_SYSPATH}/bin/clang++ for the GSan
runtime from #9568 (3.7 on). Each is read from the checkout's CMake files (bootstrap.git.setup_py), not
its version number: both landed on main while it still said the older version (#7548 `3bd3e320` under
3.4.0, #9568 `a34f373b` under 3.6.0). docs/test-world.md (conformance table) cites them.
"""

from __future__ import annotations

from pathlib import Path

from bootstrap.git.setup_py import SetupPyArgs

LLD_PACKAGE = (
    "lib/cmake/lld/LLDConfig.cmake",
    "the AMD backend's find_package(LLD REQUIRED CONFIG PATHS ${LLD_DIR}) (LLVM_ENABLE_PROJECTS with lld)",
)
GSAN_CLANGXX = (
    "bin/clang++",
    "the NVIDIA backend's find_program(TRITON_GSAN_CLANGXX clang++ PATHS ${LLVM_SYSPATH}/bin REQUIRED)"
    " (LLVM_ENABLE_PROJECTS with clang)",
)


def tree_requirements(rules: SetupPyArgs) -> list[tuple[str, str]]:
    """(path in the tree, why) of what the checkout's configure requires beyond every era's needs."""
    return [need for wanted, need in ((rules.finds_lld, LLD_PACKAGE), (rules.finds_clangxx, GSAN_CLANGXX)) if wanted]


def era_missing(path: Path, rules: SetupPyArgs) -> list[str]:
    """What the checkout's configure requires of the LLVM tree at `path` that is not there."""
    return [f"{rel}, for {why}" for rel, why in tree_requirements(rules) if not (path / rel).exists()]
