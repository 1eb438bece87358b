"""Which compilers, linker, launcher and build tools a build uses, and their versions.

Preference (a fast developer build): clang/clang++ with lld when both are installed and lld is not
turned off; gcc/g++ with the default linker otherwise (with a notice saying why). ccache is the
compiler launcher when installed and not turned off. cmake >= 3.20 and ninja are required.

Versions are read by running each tool once (a probe) and remembered by (path, size, mtime) in the
workspace state, so a re-run that changes nothing starts no tool at all.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ToolMissing
from bootstrap.core.fsutil import atomic_write_json, read_json
from bootstrap.core.runner import Runner

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


@dataclass(frozen=True)
class Toolchain:
    compiler: str  # "clang" or "gcc"
    cc: Tool
    cxx: Tool
    linker: str  # "lld" or "default"
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
    for line in text.splitlines():
        match = _NUMBER.search(line)
        if match:
            return match.group(1)
    return text.strip().splitlines()[0] if text.strip() else "unknown"


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


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
        args = _VERSION_ARGS.get(name, ("--version",))
        result = runner.run([exe, *args], step="probe-toolchain", probe=True, check=False, timeout=60)
        version = parse_version(result.stdout + "\n" + result.stderr) if result.ok else "unknown"
        self.data[exe] = {"stamp": stamp, "version": version}
        self.dirty = True
        return version

    def save(self) -> None:
        if self.dirty and self.path is not None and self.path.parent.is_dir():
            try:
                atomic_write_json(self.path, self.data)
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


def detect_toolchain(
    runner: Runner, *, use_lld: bool = True, use_ccache: bool = True, cache_file: Path | None = None
) -> Toolchain:
    """Find the build tools on PATH. Raises ToolMissing (exit 3) for cmake, ninja or a C++ compiler."""
    cache = _VersionCache(cache_file)
    notices: list[str] = []

    def tool(name: str, path: str) -> Tool:
        return Tool(name, path, cache.get(path, runner, name))

    cmake = _find(runner, "cmake")
    if cmake is None:
        raise ToolMissing("required tool 'cmake' is not on PATH", fix="install it: apt-get install cmake")
    ninja = _find(runner, "ninja", "ninja-build")
    if ninja is None:
        raise ToolMissing("required tool 'ninja' is not on PATH", fix="install it: apt-get install ninja-build")
    cmake_tool = tool("cmake", cmake[1])
    if version_tuple(cmake_tool.version) < MIN_CMAKE:
        raise ToolMissing(
            f"cmake {cmake_tool.version} at {cmake_tool.path} is too old: Triton needs cmake >= 3.20",
            fix="install a newer cmake: pip install 'cmake>=3.20,<4' (or your distribution's package)",
        )

    clang, clangxx, lld = _find(runner, "clang"), _find(runner, "clang++"), _find(runner, "ld.lld")
    gcc, gxx = _find(runner, "gcc"), _find(runner, "g++")
    compiler: str
    linker = "default"
    lld_tool: Tool | None = None
    if use_lld and clang and clangxx and lld:
        compiler, cc, cxx, linker = "clang", clang, clangxx, "lld"
        lld_tool = tool("ld.lld", lld[1])
    elif gcc and gxx:
        compiler, cc, cxx = "gcc", gcc, gxx
        if not use_lld:
            notices.append("lld turned off (--no-lld): building with gcc and the default linker")
        else:
            missing = [n for n, f in (("clang", clang), ("clang++", clangxx), ("ld.lld", lld)) if f is None]
            notices.append(
                f"{', '.join(missing)} not installed: building with gcc and the default linker"
                " (clang with lld builds and links faster: apt-get install clang lld)"
            )
    elif clang and clangxx:
        compiler, cc, cxx = "clang", clang, clangxx
        notices.append("gcc and lld not found: building with clang and the default linker")
    else:
        raise ToolMissing(
            "no C++ compiler found (looked for clang/clang++ and gcc/g++)",
            fix="install one: apt-get install clang lld  (or: apt-get install g++)",
        )

    ccache_tool: Tool | None = None
    if use_ccache:
        found = _find(runner, "ccache")
        if found:
            ccache_tool = tool("ccache", found[1])
        else:
            notices.append("ccache not installed: rebuilds after a clean start from scratch (apt-get install ccache)")

    chain = Toolchain(
        compiler=compiler,
        cc=tool(cc[0], cc[1]),
        cxx=tool(cxx[0], cxx[1]),
        linker=linker,
        lld=lld_tool,
        ccache=ccache_tool,
        cmake=cmake_tool,
        ninja=tool("ninja", ninja[1]),
        notices=tuple(notices),
    )
    cache.save()
    return chain
