"""The Triton build folder's side of the fresh-cache rule (bootstrap.pipeline.host.fresh_cache): what
setup.py's configure is given, era by era, and so what each entry of its CMakeCache.txt must hold.

setup.py passes some cache entries only when they are set, and CMake keeps the ones an earlier
configure left: the LLVM tree's paths (find_package's *_DIR), from 3.7 the tool paths and
TRITON_OFFLINE_BUILD, the sanitizer and lld flags, the compiler and the ccache launcher, and options
such as TRITON_BUILD_PROTON. What each era passes is read from its files (bootstrap.git.setup_py): up to
3.2 python/setup.py passes `-DCMAKE_CXX_COMPILER_LAUNCHER=ccache` itself and CMake sets no C launcher;
from 3.2 TRITON_APPEND_CMAKE_ARGS may set the build type after setup.py's own. Pure, but for the read
of the folder's cache in `fresh_for_install`.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.fsutil import read_regular_text
from bootstrap.pipeline.host.fresh_cache import Expect, FreshStart, Input, decide, is_on, read_cache, resolve_path

# Entries of a Triton build folder that name a place in the LLVM tree it is built against: each one an
# earlier configure cached (find_package's *_DIR, find_program's result) or was given.
_LLVM_ENTRIES = (
    "LLVM_DIR",
    "MLIR_DIR",
    "LLD_DIR",
    "LLVM_SYSPATH",
    "LLVM_LIBRARY_DIR",
    "LLVM_INCLUDE_DIRS",
    "TRITON_GSAN_CLANGXX",
)
# From 3.7 cache options that setup.py passes only when set in its environment: an online configure
# must find them unset (else the downloads stay skipped); an offline one, as it sets them now.
# setup.py @ 6d2e38bf l.334-352 (3.7), @ 1d2da15d l.350-370 (main: the ROCprofiler SDK paths too).
TOOL_ENTRIES = (
    "JSON_SYSPATH",
    "TRITON_PTXAS_PATH",
    "TRITON_PTXAS_BLACKWELL_PATH",
    "TRITON_CUOBJDUMP_PATH",
    "TRITON_NVDISASM_PATH",
    "TRITON_CUDART_PATH",
    "TRITON_CUDACRT_PATH",
    "TRITON_CUPTI_INCLUDE_PATH",
    "TRITON_CUPTI_LIB_PATH",
    "TRITON_CUPTI_LIB_BLACKWELL_PATH",
    "TRITON_AMD_CODEGEN_PATH",
    "TRITON_ROCPROFILER_SDK_INCLUDE_PATH",
    "TRITON_ROCPROFILER_SDK_LIB_PATH",
)
# Cache options setup.py passes only when set (passthrough; TRITON_BUILD_PROTON=OFF only when off before
# 3.3), with their option() defaults: a one-off value stays in the folder unless the next configure
# finds the default again. TRITON_STABLE_ABI: CMakeLists.txt @ 1d2da15d l.22.
OPTION_DEFAULTS = (("TRITON_BUILD_PROTON", True), ("TRITON_STABLE_ABI", False))
ASAN_FLAG = "-fsanitize=address"
LLD_FLAG = "-fuse-ld=lld"


@dataclass(frozen=True)
class TritonConfigure:
    """What setup.py's configure of the Triton build folder is given this time."""

    source: Path  # the folder setup.py configures (CMAKE_HOME_DIRECTORY)
    llvm: Path  # the LLVM tree (LLVM_SYSPATH), resolved
    build_type: str  # the CMAKE_BUILD_TYPE setup.py passes
    backends: str  # TRITON_CODEGEN_BACKENDS
    cxx: str  # the C++ compiler, resolved
    ccache: str | None  # the launcher, resolved; None: none
    clang_lld: bool  # TRITON_BUILD_WITH_CLANG_LLD
    sanitize: bool  # TRITON_BUILD_WITH_ASAN
    offline: bool  # TRITON_OFFLINE_BUILD
    tools: Mapping[str, str]  # the TOOL_ENTRIES set in setup.py's environment (resolved paths)
    tools_cached: bool = True  # they are cache options (3.7 on); before, setup.py reads them itself
    cxx_launcher_only: bool = False  # <= 3.2: setup.py passes the C++ launcher itself, CMake no C launcher
    options: Mapping[str, bool] = field(default_factory=dict)  # OPTION_DEFAULTS as this configure has them


def triton_expectations(c: TritonConfigure) -> list[Expect]:
    out = [Expect("CMAKE_HOME_DIRECTORY", Input.SOURCE, "path", str(c.source), if_present=True)]
    out += [Expect(name, Input.LLVM, "under", str(c.llvm), if_present=True) for name in _LLVM_ENTRIES]
    out += [
        Expect("TRITON_OFFLINE_BUILD", Input.OFFLINE, "switch", "ON" if c.offline else "OFF", if_present=True),
        # setup.py passes TRITON_BUILD_UT=OFF offline and nothing online (the option's default is ON).
        Expect("TRITON_BUILD_UT", Input.OFFLINE, "switch", "OFF" if c.offline else "ON", if_present=True),
    ]
    if c.tools_cached:  # set now: as given (where the era caches it); not set now: not in the cache either
        out += [
            Expect(name, Input.TOOLS, "path", c.tools[name], if_present=True)
            if name in c.tools
            else Expect(name, Input.TOOLS, "path", "")
            for name in TOOL_ENTRIES
        ]
    for lang in ("C", "CXX"):
        out.append(
            Expect(f"CMAKE_{lang}_FLAGS", Input.SANITIZER, "has_flag" if c.sanitize else "lacks_flag", ASAN_FLAG)
        )
        # <= 3.2 the C launcher is never set: python/setup.py @ 107465b8 l.414-417, @ dbc771e8 l.465-468.
        launcher = "" if lang == "C" and c.cxx_launcher_only else c.ccache or ""
        out.append(Expect(f"CMAKE_{lang}_COMPILER_LAUNCHER", Input.LAUNCHER, "path", launcher))
    out += [
        Expect(name, Input.OPTIONS, "switch", "ON" if on else "OFF", if_present=True) for name, on in c.options.items()
    ]
    for kind in ("SHARED", "MODULE", "EXE"):
        out.append(
            Expect(f"CMAKE_{kind}_LINKER_FLAGS", Input.LINKER, "has_flag" if c.clang_lld else "lacks_flag", LLD_FLAG)
        )
    out += [
        Expect("CMAKE_CXX_COMPILER", Input.COMPILER, "path", c.cxx, if_present=True),
        Expect("CMAKE_BUILD_TYPE", Input.BUILD_TYPE, "equals", c.build_type, if_present=True),
        Expect("TRITON_CODEGEN_BACKENDS", Input.BACKENDS, "equals", c.backends, if_present=True),
    ]
    return out


# setup.py's get_build_type() (every era since 3.0): the first of these set wins, else its default.
SETUP_PY_BUILD_TYPES = (
    ("DEBUG", "Debug"),
    ("REL_WITH_DEB_INFO", "RelWithDebInfo"),
    ("TRITON_REL_BUILD_WITH_ASSERTS", "TritonRelBuildWithAsserts"),
    ("TRITON_BUILD_WITH_O1", "TritonBuildWithO1"),
)
SETUP_PY_DEFAULT_BUILD_TYPE = "TritonRelBuildWithAsserts"


def _flag(env: Mapping[str, str], name: str) -> bool:
    return is_on(env.get(name, ""))


_DEFINE = re.compile(r"^-D\s*CMAKE_BUILD_TYPE(?::[A-Za-z]+)?=(.*)$")


def appended_build_type(arguments: str) -> str | None:
    """The CMAKE_BUILD_TYPE a TRITON_APPEND_CMAKE_ARGS value sets (the last one given), else None."""
    try:
        words = shlex.split(arguments)
    except ValueError:
        return None
    found = None
    for i, word in enumerate(words):
        if word == "-D" and i + 1 < len(words):
            word = "-D" + words[i + 1]
        match = _DEFINE.match(word)
        if match:
            found = match.group(1)
    return found


def setup_py_build_type(env: Mapping[str, str], appends: bool = True) -> str:
    """The CMAKE_BUILD_TYPE setup.py's configure gets for these variables: get_build_type()'s, unless
    TRITON_APPEND_CMAKE_ARGS (which setup.py appends after it, 3.2 on: `appends`) sets another."""
    chosen = next((cfg for name, cfg in SETUP_PY_BUILD_TYPES if _flag(env, name)), SETUP_PY_DEFAULT_BUILD_TYPE)
    appended = appended_build_type(env.get("TRITON_APPEND_CMAKE_ARGS", "")) if appends else None
    return appended or chosen


def triton_configure_of(
    env: Mapping[str, str],
    source: Path,
    ccache: str | None,
    backends: str,
    resolve: Callable[[str], str],
    tools_cached: bool = True,
    cxx_launcher_only: bool = False,
    appends: bool = True,
) -> TritonConfigure:
    """What setup.py's configure is given, from the environment pip runs it with (`resolve` turns a path
    or a bare program name into the file it is: realpath and PATH lookup in use, the identity in tests).

    cxx_launcher_only: <= 3.2, setup.py passes `-DCMAKE_CXX_COMPILER_LAUNCHER=ccache` (the bare name, found
    on PATH) when TRITON_BUILD_WITH_CCACHE is set, and no C launcher; from 3.3 CMake's option (default ON)
    sets both to the ccache it finds (`ccache`)."""
    clang_lld = _flag(env, "TRITON_BUILD_WITH_CLANG_LLD")
    cxx = "clang++" if clang_lld else env.get("CXX", "c++")  # setup.py passes -DCMAKE_CXX_COMPILER=clang++
    if cxx_launcher_only:
        launcher = "ccache" if _flag(env, "TRITON_BUILD_WITH_CCACHE") else None
    else:
        launcher = ccache if is_on(env.get("TRITON_BUILD_WITH_CCACHE", "ON")) else None
    return TritonConfigure(
        source=Path(resolve(str(source))),
        llvm=Path(resolve(env.get("LLVM_SYSPATH", ""))),
        build_type=setup_py_build_type(env, appends),
        backends=backends,
        cxx=resolve(cxx),
        ccache=resolve(launcher) if launcher else None,
        clang_lld=clang_lld,
        sanitize=_flag(env, "TRITON_BUILD_WITH_ASAN"),
        offline=_flag(env, "TRITON_OFFLINE_BUILD"),
        tools={name: resolve(env[name]) for name in TOOL_ENTRIES if env.get(name)},
        tools_cached=tools_cached,
        cxx_launcher_only=cxx_launcher_only,
        options={name: is_on(env[name]) if name in env else default for name, default in OPTION_DEFAULTS},
    )


def _appends(source: Path) -> bool:
    """Whether the checkout's setup.py (at the root, or in python/ before 3.4) reads TRITON_APPEND_CMAKE_ARGS."""
    for setup in (source / "setup.py", source / "python" / "setup.py"):
        try:
            if "TRITON_APPEND_CMAKE_ARGS" in read_regular_text(setup):
                return True
        except OSError:
            continue
    return False


def fresh_for_install(
    env: Mapping[str, str], unset: Iterable[str], folder: Path | None, source: Path, ccache: str | None, backends: str
) -> FreshStart | None:
    """setup.py's build folder (None: not there yet), when its cache differs from what a pip install with
    `env` configures it with: for the steps that run setup's install outside setup's plan (`bisect llvm`,
    `build` with another sanitizer)."""
    cache = read_cache(folder) if folder is not None else None
    if cache is None:
        return None
    removed = set(unset)
    inherited = {k: v for k, v in os.environ.items() if k not in removed}
    # 3.7's CMakeLists.txt declares TRITON_OFFLINE_BUILD: from then on the tool paths are cache options.
    # Before 3.3 CMake has no TRITON_BUILD_WITH_CCACHE option (setup.py passes the C++ launcher alone).
    wanted = triton_configure_of(
        {**inherited, **env},
        source,
        ccache,
        backends,
        resolve_path,
        tools_cached="TRITON_OFFLINE_BUILD" in cache.values,
        cxx_launcher_only="TRITON_BUILD_WITH_CCACHE" not in cache.values,
        appends=_appends(source),
    )
    decision = decide(triton_expectations(wanted), cache)
    return FreshStart(cache.folder, decision) if decision.fresh else None
