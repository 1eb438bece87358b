"""Where a pass lives in the source, and the DEBUG_TYPE that `-debug-only=` needs for it.

A pass is declared in a `*Passes.td` as `def <Def> : Pass<"<argument>", ...>`; the one source file
that says `#define GEN_PASS_DEF_<DEF uppercased>` implements it, and the `#define DEBUG_TYPE "..."`
in that file (or in a header it includes) is what `-debug-only=` selects. The two often differ
from the argument (tritongpu-assign-latencies uses "triton-loop-pipeline"), and many passes define
none, so they are read from the checkout, never derived from the name. Reading only: no process runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

_PASS_DEF = re.compile(r'^[ \t]*def\s+(\w+)\s*:\s*(?:Interface)?Pass\s*<\s*"([^"]+)"', re.M)
_OPTION = re.compile(r'(?:List)?Option\s*<\s*"\w+"\s*,\s*"([^"]+)"')
_GEN_PASS_DEF = re.compile(r"^[ \t]*#[ \t]*define\s+GEN_PASS_DEF_(\w+)", re.M)
_DEBUG_TYPE = re.compile(r'^[ \t]*#[ \t]*define\s+DEBUG_TYPE\s+"([^"]*)"', re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include\s+"([^"]+)"', re.M)
_SKIPPED_FOLDERS = {".git", "build", "dist", "venv", ".venv", "node_modules", "__pycache__", "llvm-project"}
_SOURCE_SUFFIXES = (".cpp", ".cc")


@dataclass(frozen=True)
class PassSource:
    """A pass as its source declares it, and the DEBUG_TYPE of the file that implements it."""

    argument: str
    definition: str  # the TableGen def: TritonGPUCoalesce
    td: Path
    td_line: int
    options: tuple[str, ...]
    cpp: Path | None  # the file with GEN_PASS_DEF_<DEF>; None when no source file defines it
    debug_type: str | None
    debug_type_at: str | None  # "<file>:<line>" of that #define DEBUG_TYPE (the .cpp or a header it includes)
    nearby: tuple[tuple[str, str], ...] = ()  # (DEBUG_TYPE, file) of helpers next to a .cpp that has none
    root: Path | None = None  # the checkout; the paths of to_json are relative to it

    def to_json(self) -> dict[str, object]:
        root = self.root
        return {
            "checkout": str(root) if root else None,
            "argument": self.argument,
            "definition": self.definition,
            "declared_at": f"{_shown(self.td, root)}:{self.td_line}",
            "options": list(self.options),
            "source": _shown(self.cpp, root) if self.cpp else None,
            "debug_type": self.debug_type,
            "debug_type_at": self.debug_type_at,
            "nearby_debug_types": [{"debug_type": t, "file": f} for t, f in self.nearby],
        }


@dataclass(frozen=True)
class _Declared:
    definition: str
    td: Path
    line: int
    options: tuple[str, ...]
    root: Path


@dataclass
class PassIndex:
    """The passes declared in source trees (Triton's checkout, then MLIR's), read once when first asked."""

    roots: Sequence[Path]  # folders whose *.td and *.cpp are searched, in order of preference
    _declared: dict[str, _Declared] | None = None
    _sources: dict[Path, dict[str, Path]] = field(default_factory=dict)

    def declared(self) -> dict[str, _Declared]:
        if self._declared is None:
            self._declared = {}
            for root in self.roots:
                for path in _files(root, (".td",)):
                    for argument, found in _declarations(path, root).items():
                        self._declared.setdefault(argument, found)
        return self._declared

    def arguments(self) -> list[str]:
        return sorted(self.declared())

    def find(self, argument: str) -> PassSource | None:
        found = self.declared().get(argument)
        if found is None:
            return None
        cpp = self._sources_of(found.root).get(found.definition.upper())
        debug_type = debug_at = None
        nearby: tuple[tuple[str, str], ...] = ()
        if cpp is not None:
            located = debug_type_of(cpp, _include_dirs(found.root, cpp))
            if located is not None:
                debug_type, debug_at = located[0], f"{_shown(located[1], found.root)}:{located[2]}"
            else:
                nearby = tuple((t, _shown(p, found.root)) for t, p in nearby_debug_types(cpp))
        return PassSource(
            argument,
            found.definition,
            found.td,
            found.line,
            found.options,
            cpp,
            debug_type,
            debug_at,
            nearby,
            found.root,
        )

    def _sources_of(self, root: Path) -> dict[str, Path]:
        """GEN_PASS_DEF_<NAME> -> the source file that defines it, for one root (read once)."""
        if root not in self._sources:
            table: dict[str, Path] = {}
            for path in _files(root, _SOURCE_SUFFIXES):
                text = _read(path)
                if "GEN_PASS_DEF_" in text:
                    for name in _GEN_PASS_DEF.findall(text):
                        table.setdefault(name, path)
            self._sources[root] = table
        return self._sources[root]


def debug_type_of(source: Path, include_dirs: Sequence[Path]) -> tuple[str, Path, int] | None:
    """(DEBUG_TYPE, file, line) in effect in `source`: its own #define, else one of a header it includes."""
    text = _read(source)
    match = _DEBUG_TYPE.search(text)
    if match:
        return match.group(1), source, text.count("\n", 0, match.start()) + 1
    for include in _INCLUDE.findall(text):
        for folder in (source.parent, *include_dirs):
            header = folder / include
            if header.is_file():
                header_text = _read(header)
                found = _DEBUG_TYPE.search(header_text)
                if found:
                    return found.group(1), header, header_text.count("\n", 0, found.start()) + 1
                break
    return None


def nearby_debug_types(source: Path) -> list[tuple[str, Path]]:
    """DEBUG_TYPEs of the helpers next to `source`: the source files of its folder that define no pass
    themselves (a pass without a DEBUG_TYPE of its own often does its work there, as
    tritongpu-pipeline does in Pipeliner/LowerLoops.cpp)."""
    found: dict[str, Path] = {}
    try:
        siblings = sorted(p for p in source.parent.iterdir() if p.suffix in _SOURCE_SUFFIXES and p != source)
    except OSError:
        return []
    for path in siblings:
        text = _read(path)
        match = _DEBUG_TYPE.search(text)
        if match and "GEN_PASS_DEF_" not in text:
            found.setdefault(match.group(1), path)
    return sorted(found.items())


def _declarations(path: Path, root: Path) -> dict[str, _Declared]:
    text = _read(path)
    if "Pass" not in text:
        return {}
    found: dict[str, _Declared] = {}
    matches = list(_PASS_DEF.finditer(text))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        options = tuple(dict.fromkeys(_OPTION.findall(text, match.end(), end)))
        line = text.count("\n", 0, match.start(1)) + 1
        found.setdefault(match.group(2), _Declared(match.group(1), path, line, options, root))
    return found


def _include_dirs(root: Path, source: Path) -> list[Path]:
    """Where `#include "..."` of a source under `root` may point: root/include, the include folders of
    third_party/<backend>, and the folders from the source up to the root (Triton includes both ways)."""
    dirs = [root / "include", root]
    third_party = root / "third_party"
    try:
        dirs += sorted(p / "include" for p in third_party.iterdir() if (p / "include").is_dir())
    except OSError:
        pass
    folder = source.parent
    while folder != root and root in folder.parents:
        dirs.append(folder)
        folder = folder.parent
    return dirs


def _files(root: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIPPED_FOLDERS and not d.startswith("."))
        for name in sorted(names):
            if name.endswith(suffixes):
                yield Path(folder) / name


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _shown(path: Path | None, root: Path | None) -> str:
    if path is None:
        return ""
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return str(path)
