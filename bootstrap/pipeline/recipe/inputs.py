"""What the recipe is computed from: the workspace paths, the preset inputs, and a command as data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.git.setup_py import SetupPyArgs
from bootstrap.pipeline.host.jobs import Jobs
from bootstrap.pipeline.host.offline import OfflineBuild
from bootstrap.pipeline.host.toolchain import Toolchain
from bootstrap.pipeline.recipe.era import LlvmEra


@dataclass(frozen=True)
class Paths:
    workspace: Path
    triton_src: Path
    llvm_src: Path
    llvm_build: Path
    python: Path  # the target interpreter
    triton_home: Path

    @property
    def llvm_cmake_source(self) -> Path:
        return self.llvm_src / "llvm"


@dataclass(frozen=True)
class PresetInputs:
    paths: Paths
    setup_py_dir: str  # "." or "python"
    build_requires: tuple[str, ...]
    llvm_commit: str
    build_type: str
    llvm_build_type: str
    era: LlvmEra
    toolchain: Toolchain
    jobs: Jobs
    offline: OfflineBuild | None = None  # --offline: TRITON_OFFLINE_BUILD and what replaces the downloads
    setup_args: SetupPyArgs = field(default_factory=SetupPyArgs)  # what setup.py passes to CMake here
    triton_version: str | None = None  # the version setup.py computes (-DTRITON_VERSION, 3.8 on)
    target_bin: Path | None = None  # the target environment's scripts folder: first on PATH for setup.py
    base_path: str = ""  # the PATH setup runs with
    python_include: Path | None = None  # the target's Python headers
    site_packages: Path | None = None  # the target's site-packages (where pybind11/nanobind are)
    sanitize: str | None = None  # "address": setup.py's TRITON_BUILD_WITH_ASAN
    user_cmake_args: str | None = None  # the user's own TRITON_APPEND_CMAKE_ARGS (setup.py appends it)
    pybind11_include: Path | None = None  # 3.0/3.1: the headers of the pybind11 setup.py downloads
    distcc: bool = False  # the compiles run on distcc hosts (which bring back the object alone)


@dataclass(frozen=True)
class Command:
    """One command of the plan: argv, working folder, variables set, variables removed."""

    step: str
    argv: tuple[str, ...]
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    unset: tuple[str, ...] = ()

    def runner_env(self, extra: Mapping[str, str | None] | None = None) -> dict[str, str | None]:
        env: dict[str, str | None] = {name: None for name in self.unset}
        env.update(dict(self.env))
        env.update(extra or {})
        return env

    def to_json(self) -> dict[str, object]:
        return {"step": self.step, "argv": list(self.argv), "cwd": self.cwd, "env": dict(self.env)}
