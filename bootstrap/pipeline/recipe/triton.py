"""Triton's side of the recipe: the environment for setup.py, and the cmake arguments of a
hand-configured build folder (`triton-cmake`, `cmake --preset tritondev`).

The hand-configured folder passes what the pinned commit's setup.py passes (bootstrap.git.setup_py):
CMakeLists.txt stops without some of them (`TRITON_CACHE_PATH must be set ...` 3.7 on,
`LLVM_SYSPATH must be set.` and `TRITON_WHEEL_DIR must be set.` 3.4 on), and the LLVM variables,
Python headers and bindings changed names between eras.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.env.triton_variables import SKIP_VARIABLES
from bootstrap.git.setup_py import SYSPATH_NEVER
from bootstrap.pipeline.host.triton_configure import setup_py_build_type
from bootstrap.pipeline.recipe.era import BACKENDS_BUILT

if TYPE_CHECKING:
    from bootstrap.pipeline.recipe.inputs import PresetInputs


# Variables that choose setup.py's build type; the ones not wanted are removed from the environment
# so that a DEBUG=1 left in the user's shell cannot change the build behind tritondev's back.
_BUILD_TYPE_VARS = ("DEBUG", "REL_WITH_DEB_INFO", "TRITON_REL_BUILD_WITH_ASSERTS", "TRITON_BUILD_WITH_O1")
# TritonRelBuildWithAsserts: none, so setup.py builds its default (-O2 -g, assertions kept; every era's
# get_build_type()). Release has no variable of its own in any era: CMake's Release goes in through
# TRITON_APPEND_CMAKE_ARGS, which setup.py appends after its own -DCMAKE_BUILD_TYPE (3.2 on).
TRITON_BUILD_TYPE_ENV = {
    "Debug": "DEBUG",
    "RelWithDebInfo": "REL_WITH_DEB_INFO",
    "TritonRelBuildWithAsserts": None,
    "Release": None,
}
APPEND_VARIABLE = "TRITON_APPEND_CMAKE_ARGS"
RELEASE_ARGUMENT = "-DCMAKE_BUILD_TYPE=Release"
# Removed from setup.py's environment whatever the user's shell holds:
# TRITON_BUILD_DIR (3.5 on) would move the build folder away from build/cmake.*, where tritondev reads it;
# online, the variables that make upstream skip a download (its pinned ptxas & co. would then be missing
# from the install, which then runs only where they are set) and a leftover TRITON_OFFLINE_BUILD.
ALWAYS_UNSET = ("TRITON_BUILD_DIR",)
ONLINE_UNSET = ("TRITON_OFFLINE_BUILD", *SKIP_VARIABLES)
ASAN_VARIABLE = "TRITON_BUILD_WITH_ASAN"  # read by setup.py (check_env_flag): the `sanitize` setting


def _onoff(value: bool) -> str:
    return "ON" if value else "OFF"


def triton_environment(inputs: PresetInputs) -> tuple[list[tuple[str, str]], list[str]]:
    """Variables for Triton's setup.py (set, and removed), from triton-build-facts §1.2."""
    tc = inputs.toolchain
    p = inputs.paths
    env: list[tuple[str, str]] = [
        # The only LLVM variable setup.py reads; absolute, the build tree (not the source).
        ("LLVM_SYSPATH", str(p.llvm_build)),
        # Old READMEs set these too; harmless for newer setup.py, needed by none, kept for old eras.
        ("LLVM_INCLUDE_DIRS", str(p.llvm_build / "include")),
        ("LLVM_LIBRARY_DIR", str(p.llvm_build / "lib")),
    ]
    wanted = TRITON_BUILD_TYPE_ENV.get(inputs.build_type)
    if wanted:
        env.append((wanted, "1"))
    if inputs.build_type == "Release":
        # Ours first: a -DCMAKE_BUILD_TYPE of the user's own (later on the command line) still wins.
        env.append((APPEND_VARIABLE, " ".join(a for a in (RELEASE_ARGUMENT, inputs.user_cmake_args) if a)))
    env.append(("MAX_JOBS", str(inputs.jobs.compile)))
    if inputs.setup_args.link_jobs:  # CMake's link pool came with 3.3 (#5212): before, nothing reads it
        env.append(("TRITON_PARALLEL_LINK_JOBS", str(inputs.jobs.link)))
    env += [
        ("TRITON_BUILD_WITH_CCACHE", "1" if tc.ccache is not None else "0"),
        ("TRITON_BUILD_WITH_CLANG_LLD", "1" if tc.clang_lld else "0"),
        # The compiler setup.py's cmake picks when it is not told clang/lld; explicit so `cc` on PATH
        # cannot swap it.
        ("CC", tc.cc.path),
        ("CXX", tc.cxx.path),
        # Downloads and build caches of setup.py stay inside the workspace.
        ("TRITON_HOME", str(p.triton_home)),
    ]
    if inputs.target_bin is not None:
        # setup.py runs `cmake` (and looks for `lit`) from PATH: the cmake>=3.20,<4.0 the requirements
        # installed into the target, not whatever the system has.
        env.append(("PATH", f"{inputs.target_bin}:{inputs.base_path}" if inputs.base_path else str(inputs.target_bin)))
    if inputs.sanitize == "address":
        env.append((ASAN_VARIABLE, "1"))  # setup.py: -fsanitize=address in CMAKE_C_FLAGS and CMAKE_CXX_FLAGS
    unset = [name for name in _BUILD_TYPE_VARS if name != wanted] + list(ALWAYS_UNSET)
    if inputs.setup_args.jobserver_skips_jobs:
        # Newest main's setup.py passes no -j when MAKEFLAGS holds a make jobserver (#10996): the build
        # would then take make's job count instead of MAX_JOBS, which is sized from this machine's memory.
        unset.append("MAKEFLAGS")
    if inputs.offline is not None:
        env += list(inputs.offline.env)
    else:
        unset += ONLINE_UNSET
    return env, unset


def _requirement_names(requires: Sequence[str]) -> set[str]:
    return {m.group(1).lower() for m in (re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requires) if m}


def downloaded_pybind11(version: str | None, environ: Mapping[str, str], home: str) -> Path | None:
    """Where a setup.py that downloads pybind11 (3.0/3.1: `version` from cmake/pybind11-version.txt) puts
    the headers it passes as PYBIND11_INCLUDE_DIR: PYBIND11_SYSPATH's, else
    $HOME/.triton/pybind11/pybind11-<version>/include (those eras know no TRITON_HOME). None otherwise."""
    if version is None:
        return None
    given = environ.get("PYBIND11_SYSPATH")
    if given:
        return Path(given) / "include"
    return Path(home) / ".triton" / "pybind11" / f"pybind11-{version}" / "include"


def _bindings(inputs: PresetInputs) -> list[tuple[str, str]]:
    if inputs.pybind11_include is not None:  # 3.0/3.1: the headers setup.py downloads, not the target's
        return [("PYBIND11_INCLUDE_DIR", str(inputs.pybind11_include))]
    site = inputs.site_packages
    if site is None:
        return []
    paths = {
        "nanobind_ROOT": site / "nanobind" / "cmake",
        "pybind11_DIR": site / "pybind11" / "share" / "cmake" / "pybind11",
        "pybind11_INCLUDE_DIR": site / "pybind11" / "include",
        "PYBIND11_INCLUDE_DIR": site / "pybind11" / "include",
    }
    return [(name, str(paths[name])) for name in inputs.setup_args.bindings if name in paths]


def triton_cache_variables(
    inputs: PresetInputs, env: Sequence[tuple[str, str]], build_dir: Path
) -> list[tuple[str, str]]:
    """A hand-configured Triton build folder: the cmake arguments the pinned commit's setup.py passes,
    from the same environment (`TRITON_WHEEL_DIR` inside the folder: nothing lands in the package)."""
    tc = inputs.toolchain
    args = inputs.setup_args
    values = dict(env)
    cache: list[tuple[str, str]] = [
        # What setup.py's get_build_type() makes of these variables: `Release` has no variable of its own,
        # so setup.py builds its default, TritonRelBuildWithAsserts (every era since 3.0), and so does this.
        ("CMAKE_BUILD_TYPE", setup_py_build_type(values, appends=args.append_cmake_args)),
        ("CMAKE_EXPORT_COMPILE_COMMANDS", "ON"),
        ("LLVM_ENABLE_WERROR", "ON"),
        ("TRITON_BUILD_PYTHON_MODULE", "ON"),
        ("TRITON_CODEGEN_BACKENDS", ";".join(BACKENDS_BUILT)),
        ("Python3_EXECUTABLE", str(inputs.paths.python)),
    ]
    if inputs.python_include is not None:
        cache.append((args.python_include, str(inputs.python_include)))
    if args.llvm_dirs:
        cache += [("LLVM_INCLUDE_DIRS", values["LLVM_INCLUDE_DIRS"]), ("LLVM_LIBRARY_DIR", values["LLVM_LIBRARY_DIR"])]
    if args.llvm_syspath != SYSPATH_NEVER:
        cache.append(("LLVM_SYSPATH", values["LLVM_SYSPATH"]))
    if args.wheel_dir:
        cache.append(("TRITON_WHEEL_DIR", str(build_dir / "wheel")))
    if args.cache_path:
        cache.append(("TRITON_CACHE_PATH", str(inputs.paths.triton_home / ".triton")))
    if args.version and inputs.triton_version:
        cache.append(("TRITON_VERSION", inputs.triton_version))
    cache += _bindings(inputs)
    if inputs.target_bin is not None and "lit" in _requirement_names(inputs.build_requires):
        cache.append(("LLVM_EXTERNAL_LIT", str(inputs.target_bin / "lit")))
    if not args.cxx_launcher_only:  # CMake's option (3.3 on); before, setup.py passes the launcher itself
        cache.append(("TRITON_BUILD_WITH_CCACHE", _onoff(tc.ccache is not None)))
    if args.link_jobs:
        cache.append(("TRITON_PARALLEL_LINK_JOBS", values["TRITON_PARALLEL_LINK_JOBS"]))
    cache += [
        ("CMAKE_C_COMPILER", tc.cc.path),
        ("CMAKE_CXX_COMPILER", tc.cxx.path),
    ]
    if tc.clang_lld:
        cache += [
            ("CMAKE_LINKER", "lld"),
            ("CMAKE_EXE_LINKER_FLAGS", "-fuse-ld=lld"),
            ("CMAKE_MODULE_LINKER_FLAGS", "-fuse-ld=lld"),
            ("CMAKE_SHARED_LINKER_FLAGS", "-fuse-ld=lld"),
        ]
    if tc.ccache is not None:
        launchers = ("CXX",) if args.cxx_launcher_only else ("C", "CXX")
        cache += [(f"CMAKE_{lang}_COMPILER_LAUNCHER", tc.ccache.path) for lang in launchers]
    if inputs.offline is not None:
        cache += [("TRITON_OFFLINE_BUILD", "ON"), ("TRITON_BUILD_UT", "OFF")]
        cache += [(k, v) for k, v in inputs.offline.env if k != "TRITON_OFFLINE_BUILD"]
    if values.get(ASAN_VARIABLE) == "1":
        cache += [("CMAKE_C_FLAGS", "-fsanitize=address"), ("CMAKE_CXX_FLAGS", "-fsanitize=address")]
    return cache
