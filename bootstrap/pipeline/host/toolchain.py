"""Which compilers, linker, launcher and build tools a build uses, and their versions.

Preference (a fast developer build): clang/clang++ with lld when both are installed and lld is not
turned off; gcc/g++ with the default linker otherwise (with a notice saying why). ccache is the
compiler launcher when installed and not turned off. ninja and cmake are required, cmake at least
the version the Triton checkout's CMakeLists.txt asks for (and never below 3.20, setup.py's floor).

Versions are read by running each tool once (a probe) and remembered by (path, size, mtime) in the
workspace state, so a re-run that changes nothing starts no tool at all. `tritondev doctor` finds
and reads tools through the same functions (`find_tool`, `version_numbers`, `required_cmake`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.fsutil import read_json
from bootstrap.core.io.writes import replace_json
from bootstrap.core.process.runner import Runner

# Triton's setup.py needs CMake >= 3.20; a checkout may ask for more in its CMakeLists.txt.
MIN_CMAKE = (3, 20)

_VERSION_ARGS: dict[str, tuple[str, ...]] = {
    "gcc": ("-dumpfullversion",),
    "g++": ("-dumpfullversion",),
}


@dataclass(frozen=True)
class Tool:
    name: str
    path: str
    version: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "path": self.path, "version": self.version}


Compiler = Literal["clang", "gcc"]
Linker = Literal["lld", "default"]


@dataclass(frozen=True)
class Toolchain:
    compiler: Compiler
    cc: Tool
    cxx: Tool
    linker: Linker
    lld: Tool | None
    ccache: Tool | None
    cmake: Tool
    ninja: Tool
    notices: tuple[str, ...] = ()

    @property
    def clang_lld(self) -> bool:
        return self.compiler == "clang" and self.linker == "lld"

    def identity(self) -> dict[str, str]:
        """What a build's output depends on (fingerprints, the LLVM build key)."""
        ident = {
            "cc": f"{self.cc.path} {self.cc.version}",
            "cxx": f"{self.cxx.path} {self.cxx.version}",
            "linker": self.linker if self.lld is None else f"lld {self.lld.version}",
            "cmake": self.cmake.version,
            "ninja": self.ninja.version,
        }
        return ident

    def to_json(self) -> dict[str, object]:
        return {
            "compiler": self.compiler,
            "cc": self.cc.to_json(),
            "cxx": self.cxx.to_json(),
            "linker": self.linker,
            "lld": self.lld.to_json() if self.lld else None,
            "ccache": self.ccache.to_json() if self.ccache else None,
            "cmake": self.cmake.to_json(),
            "ninja": self.ninja.to_json(),
            "notices": list(self.notices),
        }


_NUMBER = re.compile(r"(\d+(?:\.\d+)+)")


def parse_version(text: str) -> str:
    """The first dotted number in a tool's --version output ("clang version 14.0.6" -> "14.0.6")."""
    match = _NUMBER.search(text)
    if match:
        return match.group(1)
    return text.strip().splitlines()[0] if text.strip() else "unknown"


def version_tuple(version: str) -> tuple[int, ...]:
    """(major, minor, patch) of a dotted version; () when it has no number ("unknown")."""
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def version_numbers(text: str) -> tuple[int, ...] | None:
    """The first dotted version in any text, as numbers (`cmake version 3.25.1` -> (3, 25, 1)), or None."""
    match = _NUMBER.search(text)
    return version_tuple(match.group(1)) if match else None


def required_cmake(asked: tuple[int, ...] | None) -> tuple[int, ...]:
    """The CMake a build needs: what the Triton checkout's cmake_minimum_required asks, never below 3.20."""
    return max(asked or (), MIN_CMAKE)


def dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in version)


def version_output(runner: Runner, exe: str, name: str, timeout: float = 60) -> str | None:
    """What the tool prints when asked for its version (gcc: -dumpfullversion), None when it does not answer."""
    args = _VERSION_ARGS.get(name, ("--version",))
    try:
        result = runner.capture([exe, *args], step="probe-toolchain", check=False, timeout=timeout)
    except (CommandFailed, ToolMissing):
        return None
    return result.stdout + "\n" + result.stderr if result.ok else None


class _VersionCache:
    """Tool versions remembered by (path, size, mtime): no process start when nothing changed."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        data = read_json(path) if path is not None else None
        self.data: dict[str, dict[str, object]] = data if isinstance(data, dict) else {}
        self.dirty = False

    def get(self, exe: str, runner: Runner, name: str) -> str:
        try:
            st = os.stat(exe)
        except OSError:
            st = None
        stamp = f"{st.st_size}:{st.st_mtime_ns}" if st else "?"
        entry = self.data.get(exe)
        if isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("version"), str):
            return str(entry["version"])
        output = version_output(runner, exe, name)
        version = parse_version(output) if output is not None else "unknown"
        self.data[exe] = {"stamp": stamp, "version": version}
        self.dirty = True
        return version

    def save(self) -> None:
        if self.dirty and self.path is not None and self.path.parent.is_dir():
            try:
                replace_json(self.path, self.data)
            except OSError:
                pass  # only a cache


def remember_versions(toolchain: Toolchain, cache_file: Path) -> None:
    """Write the versions of a toolchain found without a cache into `cache_file`, so that the next
    detection starts no process (callers write it once their inputs have proved good)."""
    cache = _VersionCache(cache_file)
    tools = [toolchain.cc, toolchain.cxx, toolchain.cmake, toolchain.ninja, toolchain.lld, toolchain.ccache]
    for tool in tools:
        if tool is None:
            continue
        try:
            st = os.stat(tool.path)
        except OSError:
            continue
        cache.data[tool.path] = {"stamp": f"{st.st_size}:{st.st_mtime_ns}", "version": tool.version}
        cache.dirty = True
    cache.save()


def _find(runner: Runner, *names: str) -> tuple[str, str] | None:
    for name in names:
        found = runner.which(name)
        if found:
            return name, found
    return None


def find_tool(runner: Runner, *names: str, cache_file: Path | None = None) -> Tool | None:
    """The first of `names` on PATH with its version ("unknown" when it does not say), or None."""
    found = _find(runner, *names)
    if found is None:
        return None
    cache = _VersionCache(cache_file)
    tool = Tool(found[0], found[1], cache.get(found[1], runner, found[0]))
    cache.save()
    return tool


def cmake_too_old(cmake: Tool, asked: tuple[int, ...] | None) -> str | None:
    """Why `cmake` cannot build a checkout asking for `asked` (None: it can)."""
    needed = required_cmake(asked)
    if version_tuple(cmake.version) >= needed:
        return None
    return f"cmake {cmake.version} at {cmake.path} is too old: this Triton needs cmake >= {dotted(needed)}"


_Found = tuple[str, str]  # (name, path) of a tool found on PATH


def _build_tools(runner: Runner) -> tuple[_Found, _Found]:
    """cmake and ninja on PATH, or ToolMissing."""
    cmake = _find(runner, "cmake")
    if cmake is None:
        raise ToolMissing("required tool 'cmake' is not on PATH", fix="install it: apt-get install cmake")
    ninja = _find(runner, "ninja", "ninja-build")
    if ninja is None:
        raise ToolMissing("required tool 'ninja' is not on PATH", fix="install it: apt-get install ninja-build")
    return cmake, ninja


def _compilers(runner: Runner, use_lld: bool, notices: list[str]) -> tuple[Compiler, _Found, _Found, _Found | None]:
    """(compiler family, cc, c++, ld.lld when it links): clang with lld, else gcc, else clang alone."""
    clang, clangxx, lld = _find(runner, "clang"), _find(runner, "clang++"), _find(runner, "ld.lld")
    gcc, gxx = _find(runner, "gcc"), _find(runner, "g++")
    if use_lld and clang and clangxx and lld:
        return "clang", clang, clangxx, lld
    if gcc and gxx:
        if not use_lld:
            notices.append("lld turned off (--no-lld): building with gcc and the default linker")
        else:
            missing = [n for n, f in (("clang", clang), ("clang++", clangxx), ("ld.lld", lld)) if f is None]
            notices.append(
                f"{', '.join(missing)} not installed: building with gcc and the default linker"
                " (clang with lld builds and links faster: apt-get install clang lld)"
            )
        return "gcc", gcc, gxx, None
    if clang and clangxx:
        notices.append("gcc and lld not found: building with clang and the default linker")
        return "clang", clang, clangxx, None
    raise ToolMissing(
        "no C++ compiler found (looked for clang/clang++ and gcc/g++)",
        fix="install one: apt-get install clang lld  (or: apt-get install g++)",
    )


def detect_toolchain(
    runner: Runner,
    *,
    use_lld: bool = True,
    use_ccache: bool = True,
    cache_file: Path | None = None,
    cmake_minimum: tuple[int, ...] | None = None,
) -> Toolchain:
    """Find the build tools on PATH. Raises ToolMissing (exit 3) for cmake (or one older than
    `cmake_minimum`, the checkout's cmake_minimum_required), ninja or a C++ compiler."""
    cache = _VersionCache(cache_file)
    notices: list[str] = []

    def tool(found: _Found, name: str | None = None) -> Tool:
        return Tool(name or found[0], found[1], cache.get(found[1], runner, name or found[0]))

    cmake, ninja = _build_tools(runner)
    cmake_tool = tool(cmake, "cmake")
    too_old = cmake_too_old(cmake_tool, cmake_minimum)
    if too_old is not None:
        raise ToolMissing(
            too_old,
            fix=f"install a newer cmake: pip install 'cmake>={dotted(required_cmake(cmake_minimum))},<4'"
            " (or your distribution's package)",
        )
    compiler, cc, cxx, lld = _compilers(runner, use_lld, notices)
    lld_tool = tool(lld, "ld.lld") if lld else None
    ccache_tool: Tool | None = None
    if use_ccache:
        found = _find(runner, "ccache")
        if found:
            ccache_tool = tool(found, "ccache")
        else:
            notices.append("ccache not installed: rebuilds after a clean start from scratch (apt-get install ccache)")
    chain = Toolchain(
        compiler=compiler,
        cc=tool(cc),
        cxx=tool(cxx),
        linker="lld" if lld else "default",
        lld=lld_tool,
        ccache=ccache_tool,
        cmake=cmake_tool,
        ninja=tool(ninja, "ninja"),
        notices=tuple(notices),
    )
    cache.save()
    return chain
