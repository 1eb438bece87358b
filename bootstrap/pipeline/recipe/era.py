"""Eras of Triton's LLVM: which LLVM a Triton version builds with, the GPU targets and backends built."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Triton's setup.py always compiles both backends (TRITON_CODEGEN_BACKENDS=nvidia;amd), so its LLVM
# needs both GPU targets whatever --backend says; "Native" is the host target.
GPU_TARGETS = {"nvidia": "NVPTX", "amd": "AMDGPU"}


@dataclass(frozen=True)
class LlvmEra:
    projects: tuple[str, ...]
    targets: tuple[str, ...]
    origin: str  # where the values come from, for the plan

    def to_json(self) -> dict[str, object]:
        return {"projects": ";".join(self.projects), "targets": ";".join(self.targets), "origin": self.origin}


def version_key(version: str | None) -> tuple[int, int]:
    nums = re.findall(r"\d+", version or "")
    return (int(nums[0]), int(nums[1])) if len(nums) >= 2 else (99, 0)


def llvm_era(script_projects: Sequence[str] | None, triton_version: str | None, backend: str = "nvidia") -> LlvmEra:
    """Projects and targets for the LLVM build, as Triton's recipe had them at that commit.

    script_projects: the LLVM_PROJECTS default of scripts/build-llvm-project.sh at the commit
    (bootstrap.git.layout.llvm_projects; 2025-05 on: "mlir;llvm", then lld added 2025-07, clang
    2026-03 for GSan). Before the script (<= 3.3): "mlir;llvm", as README.md says there (@ cf34004b
    l.81, @ dbc771e8 l.84); the table adds lld from 3.5 (#7548: the AMD backend finds lld's package)
    and clang from 3.7 (#9568), for a commit that lacks the script. "llvm" is always listed so that
    FileCheck and friends exist.
    """
    if script_projects:
        projects = list(script_projects)
        origin = "scripts/build-llvm-project.sh"
    else:
        origin = "version table"
        projects = ["mlir", "llvm"]
        if version_key(triton_version) >= (3, 5):
            projects.append("lld")
        if version_key(triton_version) >= (3, 7):
            projects.append("clang")
    if "llvm" not in projects:
        projects.insert(1 if projects and projects[0] == "mlir" else 0, "llvm")
    gpu = [GPU_TARGETS[b] for b in dict.fromkeys((backend, *BACKENDS_BUILT))]
    # Keep NVPTX before AMDGPU as upstream writes it.
    gpu.sort(key=lambda t: ("NVPTX", "AMDGPU").index(t))
    targets = ("Native", *gpu)
    return LlvmEra(tuple(dict.fromkeys(projects)), targets, origin)


# Triton's setup.py always compiles both backends (TRITON_CODEGEN_BACKENDS=nvidia;amd).
BACKENDS_BUILT = ("nvidia", "amd")
