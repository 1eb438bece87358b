"""Toolchain: git, cmake, ninja, compilers, lld, ccache, against what the Triton being built needs."""

from __future__ import annotations

import re

from bootstrap.core.runner import INSTALL_HINTS
from bootstrap.doctor.facts import Facts, Tool
from bootstrap.doctor.model import Outcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.doctor.versions import dotted

# Triton's setup.py needs CMake >= 3.20; a checkout may ask for more in its CMakeLists.txt.
MIN_CMAKE = (3, 20)
# LLVM's floor is gcc 7.4 / clang 5, but Triton's C++ needs newer: gcc 9 builds break or bloat
# (intel#1505 "please use at least gcc 11"), so warn below these.
GOOD_GCC = (11,)
GOOD_CLANG = (14,)


def _missing(tool: str, why: str) -> Outcome:
    hint = INSTALL_HINTS.get(tool, f"install {tool} with your package manager")
    return error(f"{tool} not found on PATH: {why}", f"install it: {hint}")


def _shown(tool: Tool) -> str:
    version = dotted(tool.version) if tool.version else "unknown version"
    return f"{tool.name} {version} ({tool.path})"


def pinned_cmake_minimum(facts: Facts) -> tuple[tuple[int, ...], str]:
    """The CMake the workspace's Triton checkout asks for (cmake_minimum_required), else setup.py's 3.20."""
    lists = facts.ctx.workspace.src / "triton" / "CMakeLists.txt"
    try:
        text = lists.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return MIN_CMAKE, "Triton's setup.py"
    match = re.search(r"cmake_minimum_required\s*\(\s*VERSION\s+([\d.]+)", text, re.IGNORECASE)
    if not match:
        return MIN_CMAKE, "Triton's setup.py"
    asked = tuple(int(p) for p in match.group(1).split(".") if p)
    return max(asked, MIN_CMAKE), str(lists)


@check("toolchain.git", "git")
def git(facts: Facts) -> Outcome:
    tool = facts.tool("git")
    if tool.path is None:
        return _missing("git", "needed to clone and update Triton and LLVM")
    return ok(_shown(tool))


@check("toolchain.cmake", "cmake >= 3.20")
def cmake(facts: Facts) -> Outcome:
    tool = facts.tool("cmake")
    needed, source = pinned_cmake_minimum(facts)
    if tool.path is None:
        return _missing("cmake", f"Triton and LLVM build with CMake >= {dotted(needed)}")
    if tool.version is None or tool.version < needed:
        return error(
            f"{_shown(tool)} is older than {dotted(needed)} ({source})",
            f"pip install 'cmake>={dotted(needed)}'  (or a newer cmake from your distribution)",
        )
    return ok(_shown(tool), f"needed: >= {dotted(needed)} ({source})")


@check("toolchain.ninja", "ninja")
def ninja(facts: Facts) -> Outcome:
    tool = facts.tool("ninja")
    if tool.path is None:
        return _missing("ninja", 'Triton\'s setup.py asserts "ninja not found!"')
    return ok(_shown(tool))


@check("toolchain.compilers", "C/C++ compilers (gcc, clang)")
def compilers(facts: Facts) -> Outcome:
    gcc = facts.tool("g++")
    clang = facts.tool("clang++")
    found = [t for t in (clang, gcc) if t.path]
    if not found:
        return error("no C++ compiler (g++ or clang++) on PATH", "apt-get install clang  (or: apt-get install g++)")
    shown = ", ".join(_shown(t) for t in found)
    good = (clang.path and clang.version and clang.version[:1] >= GOOD_CLANG) or (
        gcc.path and gcc.version and gcc.version[:1] >= GOOD_GCC
    )
    if not good:
        return warn(
            f"old C++ compilers: {shown}; Triton builds need gcc >= {GOOD_GCC[0]} or clang >= {GOOD_CLANG[0]}",
            "apt-get install clang  (or a newer g++)",
        )
    return ok(shown)


@check("toolchain.lld", "lld (fast links)")
def lld(facts: Facts) -> Outcome:
    tool = facts.tool("ld.lld")
    if tool.path is None:
        return warn(
            "ld.lld not found: LLVM and Triton link with the slower default linker",
            "apt-get install lld",
        )
    if not facts.ctx.settings.lld:
        return ok(f"{_shown(tool)} (turned off by the lld setting)")
    return ok(_shown(tool))


@check("toolchain.ccache", "ccache (fast rebuilds)")
def ccache(facts: Facts) -> Outcome:
    tool = facts.tool("ccache")
    if tool.path is None:
        return warn("ccache not found: every rebuild recompiles from scratch", "apt-get install ccache")
    return ok(_shown(tool))
