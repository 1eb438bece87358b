"""The one source of truth for build settings: pure functions from facts to commands.

Inputs: the Triton layout at the pinned commit (where setup.py is, its build requirements, the
LLVM flags its own scripts/build-llvm-project.sh used then), the settings (build types, jobs,
ccache, lld), the detected toolchain and the machine's resources. Outputs:

- the LLVM/MLIR cmake configure and ninja build commands,
- the environment for Triton's setup.py and the pip commands that build and install it,
- the cmake arguments of a hand-configured Triton build directory (`triton-cmake`).

Three renderers share these values, so they cannot disagree: `setup` runs the commands (and
`setup --dry-run` prints them), `render_cmake_user_presets` writes CMakeUserPresets.json into each
checkout (for `cmake --preset tritondev` by hand), and `render_shell_values` writes the values that
the shell functions in shell/triton-dev.sh run.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.git.setup_py import SetupPyArgs
from bootstrap.pipeline.jobs import Jobs
from bootstrap.pipeline.offline import OfflineBuild
from bootstrap.pipeline.recipe_triton import BACKENDS_BUILT, triton_cache_variables, triton_environment
from bootstrap.pipeline.toolchain import Toolchain

PRESET_NAME = "tritondev"

# Triton's setup.py always compiles both backends (TRITON_CODEGEN_BACKENDS=nvidia;amd), so its LLVM
# needs both GPU targets whatever --backend says; "Native" is the host target.
GPU_TARGETS = {"nvidia": "NVPTX", "amd": "AMDGPU"}



# ------------------------------------------------------------------------------------------------
# Era: which LLVM projects and targets Triton's own recipe used at the pinned commit


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
    2026-03 for GSan). Before the script: "mlir;llvm;lld" from 3.1 on (the AMD backend links lld),
    "mlir;llvm" before. "llvm" is always listed so that FileCheck and friends exist.
    """
    if script_projects:
        projects = list(script_projects)
        origin = "scripts/build-llvm-project.sh"
    else:
        origin = "version table"
        projects = ["mlir", "llvm"]
        if version_key(triton_version) >= (3, 1):
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


# ------------------------------------------------------------------------------------------------
# Inputs and outputs


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


@dataclass(frozen=True)
class Presets:
    llvm_key: str
    llvm_cache: tuple[tuple[str, str], ...]  # -D variables of the LLVM configure
    llvm_configure: Command
    llvm_build: Command
    triton_env: tuple[tuple[str, str], ...]
    triton_unset: tuple[str, ...]
    pip_requirements: Command | None
    pip_install: Command
    triton_cache: tuple[tuple[str, str], ...]  # -D variables of a hand-configured Triton build
    triton_cmake: Command
    triton_cmake_build_dir: Path
    notes: tuple[str, ...] = field(default=())

    def commands(self) -> list[Command]:
        """The build commands `setup` runs, in order (without sources, purge and verify)."""
        out = [self.llvm_configure, self.llvm_build]
        if self.pip_requirements is not None:
            out.append(self.pip_requirements)
        out.append(self.pip_install)
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "llvm_key": self.llvm_key,
            "llvm_cmake": dict(self.llvm_cache),
            "triton_env": dict(self.triton_env),
            "triton_cmake": dict(self.triton_cache),
            "commands": [c.to_json() for c in self.commands()],
        }


def llvm_build_key(commit: str, build_type: str, era: LlvmEra, toolchain: Toolchain) -> str:
    """What makes two LLVM builds interchangeable: commit, build type, targets, projects, compiler, linker.

    Not jobs, not ccache, not paths: a build made with any of those is the same build.
    """
    ident = toolchain.identity()
    parts = {
        "commit": commit,
        "build_type": build_type,
        "targets": ";".join(era.targets),
        "projects": ";".join(era.projects),
        "cc": ident["cc"],
        "cxx": ident["cxx"],
        "linker": ident["linker"],
    }
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:12]
    return f"{commit[:8]}-{build_type}-{digest}"


def llvm_cache_variables(inputs: PresetInputs) -> list[tuple[str, str]]:
    """The LLVM/MLIR configure, as Triton's scripts/build-llvm-project.sh has it, plus what a fast
    developer build wants (clang + lld, ccache as launcher, split DWARF in Debug, link and tablegen job
    pools)."""
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
    if debug:
        # Debug info in .dwo files: links read a fraction of it, so they need far less memory and time.
        cache.append(("LLVM_USE_SPLIT_DWARF", "ON"))
    cache.append(("LLVM_PARALLEL_LINK_JOBS", str(inputs.jobs.link)))
    # Tablegen always runs here (never through ccache or distcc): as many at once as local compiles.
    cache.append(("LLVM_PARALLEL_TABLEGEN_JOBS", str(inputs.jobs.tablegen_jobs)))
    return cache


def _defines(cache: Sequence[tuple[str, str]]) -> list[str]:
    return [f"-D{name}={value}" for name, value in cache]


def setup_py_path(inputs: PresetInputs) -> Path:
    return inputs.paths.triton_src if inputs.setup_py_dir == "." else inputs.paths.triton_src / inputs.setup_py_dir


def make_presets(inputs: PresetInputs) -> Presets:
    p = inputs.paths
    tc = inputs.toolchain
    llvm_cache = llvm_cache_variables(inputs)
    configure = Command(
        "llvm-configure",
        ("cmake", "-G", "Ninja", "-S", str(p.llvm_cmake_source), "-B", str(p.llvm_build), *_defines(llvm_cache)),
    )
    build = Command("llvm-build", ("ninja", "-C", str(p.llvm_build), "-j", str(inputs.jobs.compile)))
    env, unset = triton_environment(inputs)
    triton_dir = p.triton_src / "build" / f"{PRESET_NAME}-{inputs.build_type}"
    pip = (str(p.python), "-m", "pip", "install", "--disable-pip-version-check")
    requirements = (
        Command("triton-requirements", (*pip, *inputs.build_requires)) if inputs.build_requires else None
    )
    # --no-build-isolation: the build uses the cmake/ninja installed above, the same path every time, so
    # ninja rebuilds only what changed (a fresh isolated env would change it and rebuild everything).
    install = Command(
        "triton-install",
        (*pip, "--no-build-isolation", "-v", "-e", str(setup_py_path(inputs))),
        cwd=str(p.triton_src),
        env=tuple(env),
        unset=tuple(unset),
    )
    triton_cache = triton_cache_variables(inputs, env, triton_dir)
    triton_cmake = Command(
        "triton-cmake",
        ("cmake", "-G", "Ninja", "-S", str(p.triton_src), "-B", str(triton_dir), *_defines(triton_cache)),
    )
    key = llvm_build_key(inputs.llvm_commit, inputs.llvm_build_type, inputs.era, tc)
    return Presets(
        llvm_key=key,
        llvm_cache=tuple(llvm_cache),
        llvm_configure=configure,
        llvm_build=build,
        triton_env=tuple(env),
        triton_unset=tuple(unset),
        pip_requirements=requirements,
        pip_install=install,
        triton_cache=tuple(triton_cache),
        triton_cmake=triton_cmake,
        triton_cmake_build_dir=triton_dir,
    )


# ------------------------------------------------------------------------------------------------
# Renderers


# The description of the presets setup writes: how a CMakeUserPresets.json is known to be tritondev's.
PRESETS_MARK = "Written by tritondev setup; re-run it to refresh."


def render_cmake_user_presets(
    cache: Sequence[tuple[str, str]], binary_dir: Path, jobs: int, *, display: str
) -> str:
    """CMakeUserPresets.json: `cmake --preset tritondev` and `cmake --build --preset tritondev`."""
    data = {
        "version": 3,
        "cmakeMinimumRequired": {"major": 3, "minor": 20, "patch": 0},
        "configurePresets": [
            {
                "name": PRESET_NAME,
                "displayName": display,
                "description": PRESETS_MARK,
                "generator": "Ninja",
                "binaryDir": str(binary_dir),
                "cacheVariables": dict(cache),
            }
        ],
        "buildPresets": [{"name": PRESET_NAME, "configurePreset": PRESET_NAME, "jobs": jobs}],
    }
    return json.dumps(data, indent=2) + "\n"


def _bash_array(name: str, items: Sequence[str]) -> str:
    return f"{name}=(" + " ".join(shlex.quote(i) for i in items) + ")\n"


def llvm_elsewhere(kind: str, build: Path) -> str:
    """Why the workspace has no LLVM of its own for triton-configure-mlir / triton-build-mlir to
    configure or build ("" when it has: --llvm source)."""
    if kind == "prebuilt":
        return f"LLVM comes from Triton's prebuilt package unpacked in {build} (--llvm prebuilt)"
    if kind == "path":
        return f"LLVM comes from the given path {build} (--llvm {build})"
    return ""


def render_shell_values(presets: Presets, paths: Paths, llvm_kind: str = "source") -> str:
    """The values shell/triton-dev.sh runs: bash arrays, one per command, written into the workspace.

    With --llvm prebuilt or PATH there is no LLVM checkout or build folder of the workspace: the LLVM
    commands are left empty and TRITON_DEV_LLVM_ELSEWHERE says why, so that the functions refuse
    rather than run cmake on folders that are not there."""
    env = [f"{k}={v}" for k, v in presets.triton_env]
    unset = [f"-u{name}" for name in presets.triton_unset]
    elsewhere = llvm_elsewhere(llvm_kind, paths.llvm_build)
    lines = [
        "# Written by `tritondev setup` from its presets; shell/triton-dev.sh reads it. Do not edit:\n",
        "# re-run `tritondev setup` (or `tritondev setup --dry-run`) to change it.\n",
        "# shellcheck disable=SC2034\n",
        f"TRITON_DEV_TRITON_SRC={shlex.quote(str(paths.triton_src))}\n",
        f"TRITON_DEV_LLVM_ELSEWHERE={shlex.quote(elsewhere)}\n",
        _bash_array("TRITON_DEV_LLVM_CONFIGURE", () if elsewhere else presets.llvm_configure.argv),
        _bash_array("TRITON_DEV_LLVM_BUILD", () if elsewhere else presets.llvm_build.argv),
        _bash_array("TRITON_DEV_TRITON_ENV", [*unset, *env]),
        _bash_array("TRITON_DEV_PIP_REQUIREMENTS", presets.pip_requirements.argv if presets.pip_requirements else []),
        _bash_array("TRITON_DEV_PIP_INSTALL", presets.pip_install.argv),
        _bash_array("TRITON_DEV_TRITON_CMAKE", presets.triton_cmake.argv),
    ]
    return "".join(lines)
