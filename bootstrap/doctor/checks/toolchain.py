"""Toolchain: git, cmake, ninja, compilers, lld, ccache, against what the Triton being built needs.

Tools are found and their versions read by setup's own toolchain detection (bootstrap.pipeline.host.toolchain),
and the CMake needed is setup's rule too (the checkout's cmake_minimum_required, never below 3.20).
"""

from __future__ import annotations

from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.process.command_env import INSTALL_HINTS
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.git.layout import TOP_CMAKELISTS, cmake_minimum_required
from bootstrap.pipeline.host.toolchain import Tool, cmake_too_old, dotted, find_tool, required_cmake, version_tuple

# Triton asks for cmake>=3.20,<4.0 (python/requirements.txt and pyproject.toml since #6903).
CMAKE_TOO_NEW = (4,)
# LLVM's floor is gcc 7.4 / clang 5, but Triton's C++ needs newer: gcc 9 builds break or bloat
# (intel#1505 "please use at least gcc 11"), so warn below these.
GOOD_GCC = (11,)
GOOD_CLANG = (14,)


def _missing(tool: str, why: str) -> CheckOutcome:
    hint = INSTALL_HINTS.get(tool, f"install {tool} with your package manager")
    return error(f"{tool} not found on PATH: {why}", f"install it: {hint}")


def tool_on_path(facts: Facts, *names: str) -> Tool | None:
    """The first of `names` on PATH with its version, found once per doctor run (setup's detection)."""
    return facts.memo(f"toolchain-{names[0]}", lambda: find_tool(facts.ctx.runner, *names))


def _shown(tool: Tool) -> str:
    return f"{tool.name} {tool.version if tool.version != 'unknown' else 'unknown version'} ({tool.path})"


def pinned_cmake_minimum(facts: Facts) -> tuple[tuple[int, ...], str]:
    """The CMake the workspace's Triton checkout asks for (cmake_minimum_required), else setup.py's 3.20."""
    checkout = facts.ctx.workspace.triton_src

    def read(path: str) -> str | None:
        try:
            return read_regular_text(checkout / path)
        except OSError:
            return None

    asked = cmake_minimum_required(read)
    return required_cmake(asked), str(checkout / TOP_CMAKELISTS) if asked else "Triton's setup.py"


@check("toolchain.git", "git")
def git(facts: Facts) -> CheckOutcome:
    tool = tool_on_path(facts, "git")
    if tool is None:
        return _missing("git", "needed to clone and update Triton and LLVM")
    return ok(_shown(tool))


@check("toolchain.cmake", "cmake >= 3.20")
def cmake(facts: Facts) -> CheckOutcome:
    tool = tool_on_path(facts, "cmake")
    needed, source = pinned_cmake_minimum(facts)
    if tool is None:
        return _missing("cmake", f"Triton and LLVM build with CMake >= {dotted(needed)}")
    if cmake_too_old(tool, needed) is not None:
        return error(
            f"{_shown(tool)} is older than {dotted(needed)} ({source})",
            f"pip install 'cmake>={dotted(needed)}'  (or a newer cmake from your distribution)",
        )
    if version_tuple(tool.version)[:1] >= CMAKE_TOO_NEW:
        return warn(
            f"{_shown(tool)} is 4.0 or newer; Triton asks for cmake>=3.20,<4.0 (python/requirements.txt)",
            "tritondev setup installs that cmake into the target environment and puts it first on PATH for"
            " setup.py; building by hand: pip install 'cmake>=3.20,<4'",
        )
    return ok(_shown(tool), f"needed: >= {dotted(needed)} ({source})")


@check("toolchain.ninja", "ninja")
def ninja(facts: Facts) -> CheckOutcome:
    tool = tool_on_path(facts, "ninja", "ninja-build")
    if tool is None:
        return _missing("ninja", 'Triton\'s setup.py asserts "ninja not found!"')
    return ok(_shown(tool))


@check("toolchain.compilers", "C/C++ compilers (gcc, clang)")
def compilers(facts: Facts) -> CheckOutcome:
    gcc = tool_on_path(facts, "g++")
    clang = tool_on_path(facts, "clang++")
    found = [t for t in (clang, gcc) if t is not None]
    if not found:
        return error("no C++ compiler (g++ or clang++) on PATH", "apt-get install clang  (or: apt-get install g++)")
    shown = ", ".join(_shown(t) for t in found)
    good = (clang is not None and version_tuple(clang.version)[:1] >= GOOD_CLANG) or (
        gcc is not None and version_tuple(gcc.version)[:1] >= GOOD_GCC
    )
    if not good:
        return warn(
            f"old C++ compilers: {shown}; Triton builds need gcc >= {GOOD_GCC[0]} or clang >= {GOOD_CLANG[0]}",
            "apt-get install clang  (or a newer g++)",
        )
    return ok(shown)


@check("toolchain.lld", "lld (fast links)")
def lld(facts: Facts) -> CheckOutcome:
    tool = tool_on_path(facts, "ld.lld")
    if tool is None:
        return warn(
            "ld.lld not found: LLVM and Triton link with the slower default linker",
            "apt-get install lld",
        )
    if not facts.ctx.settings.lld:
        return ok(f"{_shown(tool)} (turned off by the lld setting)")
    return ok(_shown(tool))


@check("toolchain.ccache", "ccache (fast rebuilds)")
def ccache(facts: Facts) -> CheckOutcome:
    tool = tool_on_path(facts, "ccache")
    if tool is None:
        return warn("ccache not found: every rebuild recompiles from scratch", "apt-get install ccache")
    return ok(_shown(tool))
