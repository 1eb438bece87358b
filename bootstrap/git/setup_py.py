"""What Triton's setup.py passes to CMake at one commit, and what its build downloads, read from its files.

The version number cannot say it: main commits between a build change and the next version bump
carry the old number (the downloads moved into CMake on main in 2026-02 while main still said
3.6.0). So each fact is read from the text upstream changed when it changed
(/work/research/triton-build-eras.md §1, §3, §4, §5; docs/test-world.md cites each commit):

- `-DLLVM_SYSPATH`: never from python/setup.py (<= 3.3: only `-DLLVM_INCLUDE_DIRS`,
  `-DLLVM_LIBRARY_DIR`); always from the root setup.py of 3.4-3.6 (`-D{p.syspath_var_name}=...`);
  only when the environment has it once CMake runs the downloads (3.7 on: passthrough);
- `-DTRITON_WHEEL_DIR` (3.4 on), `-DTRITON_CACHE_PATH` (3.7 on), `-DTRITON_VERSION` (3.8 on);
- the Python include variable (`PYTHON_INCLUDE_DIRS` <= 3.2, `Python3_INCLUDE_DIR` after);
- the bindings' variables (`PYBIND11_INCLUDE_DIR` <= 3.2, `pybind11_DIR` 3.3-3.8, `nanobind_ROOT`);
- TRITON_OFFLINE_BUILD (3.2 on), TRITON_BUILD_DIR (3.5 on), a second `ptxas-blackwell`;
- TRITON_APPEND_CMAKE_ARGS (#4304, 3.2 on);
- the ccache launcher: `-DCMAKE_CXX_COMPILER_LAUNCHER=ccache` from python/setup.py itself (<= 3.2), both
  launchers from CMake's TRITON_BUILD_WITH_CCACHE option (#5076, 3.3 on); TRITON_PARALLEL_LINK_JOBS (#5212);
- pybind11 downloaded into the Triton cache (`cmake/pybind11-version.txt`, 3.0/3.1) instead of the
  environment's (#4450);
- the GSan runtime compiled against `--cuda-path=<third_party/nvidia/backend>` (3.7), which then must
  hold the CUDA tools and headers before the build;
- `compile_commands.json` linked at the checkout root by setup.py (#7305, 3.5 on); `-j` left out under a
  make jobserver (#10996, newest main).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

ReadFile = Callable[[str], str | None]

# How setup.py hands LLVM_SYSPATH to CMake.
SYSPATH_NEVER = "never"  # python/setup.py (<= 3.3): LLVM_INCLUDE_DIRS and LLVM_LIBRARY_DIR only
SYSPATH_ALWAYS = "always"  # root setup.py 3.4-3.6: the download folder or $LLVM_SYSPATH
SYSPATH_FROM_ENV = "from-env"  # 3.7 on: passed through when the environment has it


@dataclass(frozen=True)
class SetupPyArgs:
    llvm_syspath: str = SYSPATH_FROM_ENV
    llvm_dirs: bool = False  # -DLLVM_INCLUDE_DIRS / -DLLVM_LIBRARY_DIR (setup.py computed them before 3.7)
    wheel_dir: bool = True  # -DTRITON_WHEEL_DIR
    cache_path: bool = True  # -DTRITON_CACHE_PATH
    version: bool = True  # -DTRITON_VERSION
    python_include: str = "Python3_INCLUDE_DIR"  # or PYTHON_INCLUDE_DIRS
    bindings: tuple[str, ...] = ("nanobind_ROOT",)  # the -D variables naming the Python bindings
    offline_flag: bool = True  # TRITON_OFFLINE_BUILD exists
    build_dir_env: bool = True  # TRITON_BUILD_DIR moves the build folder
    downloads_in_cmake: bool = True  # CMake runs python/build_helpers.py (else setup.py downloads)
    ptxas_blackwell: bool = True  # a second ptxas, bin/ptxas-blackwell
    append_cmake_args: bool = True  # setup.py appends TRITON_APPEND_CMAKE_ARGS to its cmake arguments
    cxx_launcher_only: bool = False  # setup.py passes -DCMAKE_CXX_COMPILER_LAUNCHER=ccache (no C launcher)
    link_jobs: bool = True  # CMake has TRITON_PARALLEL_LINK_JOBS
    pybind11_version: str | None = None  # pybind11 downloaded into <cache>/pybind11/pybind11-<version>
    gsan_cuda_path: bool = False  # the GSan runtime's --cuda-path is third_party/nvidia/backend
    links_compile_commands: bool = True  # setup.py links compile_commands.json at the checkout root
    jobserver_skips_jobs: bool = True  # setup.py passes no -j when MAKEFLAGS holds a jobserver fifo
    # get_llvm_package_info's rules: TRITON_LLVM_SYSTEM_SUFFIX (#7430), almalinux-arm64 (3.3 on),
    # centos-x64 for glibc <= 2.17 (until #8191).
    suffix_env: bool = True
    almalinux_arm64: bool = True
    centos_x64: bool = False
    # What the configure requires of the LLVM tree: lld's package (third_party/amd, #7548), the tree's
    # clang++ for the GSan runtime (third_party/nvidia, #9568).
    finds_lld: bool = True
    finds_clangxx: bool = True
    # The Pythons setup.py accepts (its python_requires): MIN_PYTHON/MAX_PYTHON on newest main (#6649
    # era on), else a `python_requires=">=3.9"` literal; None: it names no bound.
    python_min: tuple[int, int] | None = None
    python_max: tuple[int, int] | None = None  # the newest X.Y accepted

    def to_json(self) -> dict[str, object]:
        return {
            "llvm_syspath": self.llvm_syspath,
            "llvm_dirs": self.llvm_dirs,
            "wheel_dir": self.wheel_dir,
            "cache_path": self.cache_path,
            "version": self.version,
            "python_include": self.python_include,
            "bindings": list(self.bindings),
            "offline_flag": self.offline_flag,
            "build_dir_env": self.build_dir_env,
            "downloads_in_cmake": self.downloads_in_cmake,
            "ptxas_blackwell": self.ptxas_blackwell,
            "append_cmake_args": self.append_cmake_args,
            "cxx_launcher_only": self.cxx_launcher_only,
            "link_jobs": self.link_jobs,
            "pybind11_version": self.pybind11_version,
            "gsan_cuda_path": self.gsan_cuda_path,
            "links_compile_commands": self.links_compile_commands,
            "jobserver_skips_jobs": self.jobserver_skips_jobs,
            "suffix_env": self.suffix_env,
            "almalinux_arm64": self.almalinux_arm64,
            "centos_x64": self.centos_x64,
            "finds_lld": self.finds_lld,
            "finds_clangxx": self.finds_clangxx,
            "python_requires": self.python_requires,
        }

    @property
    def python_requires(self) -> str | None:
        bounds = [f">={self.python_min[0]}.{self.python_min[1]}"] if self.python_min else []
        if self.python_max:
            bounds.append(f"<{self.python_max[0]}.{self.python_max[1] + 1}")
        return ",".join(bounds) or None

    def refuses(self, version: str) -> bool:
        """Whether pip would refuse to install this checkout into Python `version` ("3.15.0")."""
        parts = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
        if len(parts) != 2:
            return False
        return bool((self.python_min and parts < self.python_min) or (self.python_max and parts > self.python_max))


_BOUND = {
    name: re.compile(rf"^{name}\s*=\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)", re.MULTILINE)
    for name in ("MIN_PYTHON", "MAX_PYTHON")
}
_REQUIRES = re.compile(r"""python_requires\s*=\s*["']\s*>=\s*(\d+)\.(\d+)\s*(?:,\s*<\s*(\d+)\.(\d+)\s*)?["']""")


def python_bounds(setup: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(oldest, newest X.Y) a setup.py accepts."""
    low, high = (_BOUND[n].search(setup) for n in ("MIN_PYTHON", "MAX_PYTHON"))
    if low or high:
        return ((int(low[1]), int(low[2])) if low else None, (int(high[1]), int(high[2])) if high else None)
    literal = _REQUIRES.search(setup)
    if literal is None:
        return None, None
    newest = (int(literal[3]), int(literal[4]) - 1) if literal[3] else None
    return (int(literal[1]), int(literal[2])), newest


# third_party/nvidia/CMakeLists.txt @ 6d2e38bf: set(GSAN_RUNTIME_PLATFORM_FLAGS "--cuda-path=${...}/backend").
_GSAN_CUDA_PATH = re.compile(r"--cuda-path=\$\{CMAKE_CURRENT_SOURCE_DIR\}/backend\b")
_CXX_LAUNCHER = re.compile(r"""["']-DCMAKE_CXX_COMPILER_LAUNCHER=ccache["']""")


def _pybind11_version(read: ReadFile, setup: str, helpers: str) -> str | None:
    """The pybind11 version setup.py downloads (3.0/3.1: cmake/pybind11-version.txt), else None."""
    if "pybind11-version.txt" not in setup + helpers:
        return None
    text = (read("cmake/pybind11-version.txt") or "").strip()
    return text if re.fullmatch(r"\d+(\.\d+){1,2}", text) else None


def read_setup_py_args(read: ReadFile, where: str) -> SetupPyArgs:
    """The facts above from setup.py (in `where`), python/build_helpers.py and the CMake files."""
    setup = read("setup.py" if where == "." else f"{where}/setup.py") or ""
    helpers = read("python/build_helpers.py") or ""
    cmake = read("CMakeLists.txt") or ""
    nvidia = read("third_party/nvidia/CMakeLists.txt") or ""
    amd = read("third_party/amd/CMakeLists.txt") or ""
    in_cmake = "build_helpers.py" in cmake
    if "-D{p.syspath_var_name}" in setup:
        syspath = SYSPATH_ALWAYS
    elif in_cmake and "LLVM_SYSPATH" in setup:
        syspath = SYSPATH_FROM_ENV
    else:
        syspath = SYSPATH_NEVER
    if "nanobind_ROOT" in setup:
        bindings: tuple[str, ...] = ("nanobind_ROOT",)
    elif "pybind11_DIR" in setup:
        bindings = ("pybind11_INCLUDE_DIR", "pybind11_DIR")
    else:
        bindings = ("PYBIND11_INCLUDE_DIR",)
    both = setup + "\n" + helpers
    return SetupPyArgs(
        llvm_syspath=syspath,
        llvm_dirs=not in_cmake,
        wheel_dir="-DTRITON_WHEEL_DIR" in setup,
        cache_path="-DTRITON_CACHE_PATH" in setup,
        version="-DTRITON_VERSION" in setup,
        python_include="PYTHON_INCLUDE_DIRS" if "-DPYTHON_INCLUDE_DIRS" in setup else "Python3_INCLUDE_DIR",
        bindings=bindings,
        offline_flag="TRITON_OFFLINE_BUILD" in both,
        build_dir_env="TRITON_BUILD_DIR" in both,
        downloads_in_cmake=in_cmake,
        ptxas_blackwell="ptxas-blackwell" in both,
        append_cmake_args="TRITON_APPEND_CMAKE_ARGS" in setup,
        cxx_launcher_only=bool(_CXX_LAUNCHER.search(setup)) and "CMAKE_C_COMPILER_LAUNCHER" not in cmake,
        link_jobs="TRITON_PARALLEL_LINK_JOBS" in cmake,
        pybind11_version=_pybind11_version(read, setup, helpers),
        gsan_cuda_path=bool(_GSAN_CUDA_PATH.search(nvidia)),
        links_compile_commands="compile_commands.json" in setup,
        jobserver_skips_jobs="--jobserver-auth" in setup,
        suffix_env="TRITON_LLVM_SYSTEM_SUFFIX" in both,
        almalinux_arm64="almalinux-arm64" in both,
        centos_x64="centos-x64" in both,
        finds_lld=bool(re.search(r"find_package\(\s*LLD\b", amd)),
        finds_clangxx="TRITON_GSAN_CLANGXX" in nvidia,
        python_min=python_bounds(setup)[0],
        python_max=python_bounds(setup)[1],
    )
