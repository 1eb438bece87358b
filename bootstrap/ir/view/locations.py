"""Each line of a dumped IR as the page shows it (locations left out) and the source line it came from.

Where an op came from is printed in several forms, one per IR:
- MLIR: `loc("k.py":12:5)`, an alias `loc(#loc12)` defined once as `#loc12 = loc(...)`, names
  (`loc("offs"(#loc3))`), call sites (`loc(callsite(#callee at #caller))`) and fused locations;
- LLVM IR: `!dbg !12`, with `!12 = !DILocation(line: 12, column: 5, scope: !4)`, the scope naming its
  `!DIFile(filename: ..., directory: ...)`, `inlinedAt:` the call site of an inlined function;
- PTX and AMDGCN: `.file 1 "k.py"` and `.loc 1 12 5` before the instructions of that line.
An op whose location goes through a call (a `tl.zeros` inlined from triton/language/standard.py) is
given the line of the kernel's own file that called it when there is one: that is the line the kernel's
author wrote. Pure and linear in the text: a crafted dump cannot make it loop or recurse deeply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bootstrap.ir.text import strip_locations

Where = tuple[str, int]  # (file, line)

_MLIR_ALIAS = re.compile(r"^(#loc[\w.$-]*)\s*=\s*loc\((.*)\)\s*$")
_MLIR_LEAF_OR_ALIAS = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):\d+|(#loc[\w.$-]*)')
_IDENTIFIER = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$#%@")
_LLVM_DBG = re.compile(r"!dbg\s+!(\d+)")
_LLVM_METADATA = re.compile(r"^!(\d+)\s*=\s*(.*)$")
_DI_LINE = re.compile(r"\bline:\s*(\d+)")
_DI_FIELD = {name: re.compile(rf"\b{name}:\s*!(\d+)") for name in ("scope", "file", "inlinedAt")}
_DI_STRING = {name: re.compile(rf'\b{name}:\s*"((?:[^"\\]|\\.)*)"') for name in ("filename", "directory")}
_ASM_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"(?:\s*,?\s*"((?:[^"\\]|\\.)*)")?')
_ASM_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)")
# Triton's own library: a location there is a call into it, not the kernel author's line.
_LIBRARY_PARTS = ("/triton/language/", "/triton/runtime/", "/triton/experimental/", "/triton/tools/")
_MAX_DEPTH = 64  # alias and scope chains: far deeper than any printer writes, short enough for any input


@dataclass(frozen=True)
class Located:
    """The lines the page shows (locations left out) and, for each, where in the source it came from."""

    lines: list[str]
    where: list[Where | None]


def located_lines(text: str, kind: str) -> Located:
    """`text` (one dump's body) as shown lines and their source lines; kind: mlir | llvm | nvptx | amdgcn | other."""
    raw = text.split("\n")
    if kind == "mlir":
        lines, where = _mlir_lines(raw)
    else:
        found = (
            _llvm_locations(raw)
            if kind == "llvm"
            else (_asm_locations(raw) if kind in ("nvptx", "amdgcn") else [None] * len(raw))
        )
        lines, where = [], []
        for line, place in zip(raw, found, strict=True):
            shown = strip_locations(line, kind)
            if not shown and line.strip():
                continue  # a line that is only location information (`.loc`, `!12 = !DILocation(...)`)
            lines.append(shown.rstrip())
            where.append(place)
    while lines and not lines[-1]:
        lines.pop()
        where.pop()
    return Located(lines, where)


def is_library(path: str) -> bool:
    """Is `path` a file of Triton's own library (a call the kernel made, not the kernel's own code)?"""
    return any(part in path.replace("\\", "/") for part in _LIBRARY_PARTS)


def _choose(leaves: list[Where]) -> Where | None:
    """The location shown for an op: the first outside Triton's library, else the last (the outermost caller)."""
    for leaf in leaves:
        if not is_library(leaf[0]):
            return leaf
    return leaves[-1] if leaves else None


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\\\", "\\")


# -- MLIR ---------------------------------------------------------------------------------------------------


def _mlir_lines(raw: list[str]) -> tuple[list[str], list[Where | None]]:
    aliases: dict[str, str] = {}
    for line in raw:
        match = _MLIR_ALIAS.match(line) if line.startswith("#loc") else None
        if match:
            aliases[match.group(1)] = match.group(2)
    memo: dict[str, list[Where]] = {}

    def leaves(expression: str, depth: int) -> list[Where]:
        found: list[Where] = []
        for match in _MLIR_LEAF_OR_ALIAS.finditer(expression):
            if match.group(1) is not None:
                found.append((_unescape(match.group(1)), int(match.group(2))))
            elif depth < _MAX_DEPTH:
                found += alias(match.group(3), depth + 1)
        return found

    def alias(name: str, depth: int) -> list[Where]:
        if name not in memo:
            memo[name] = []  # a cycle of aliases resolves to nothing
            memo[name] = leaves(aliases.get(name, ""), depth)[:_MAX_DEPTH]
        return memo[name]

    chosen: dict[str, Where | None] = {}
    lines: list[str] = []
    places: list[Where | None] = []
    for line in raw:
        if "loc(" not in line:
            lines.append(line.rstrip())
            places.append(None)
            continue
        if line.startswith("#loc") and _MLIR_ALIAS.match(line):
            continue
        spans = loc_spans(line)
        place = None
        for start, end in reversed(spans):
            call = line[start + 4 : end - 1]
            if call not in chosen:
                chosen[call] = _choose(leaves(call, 0))
            place = chosen[call]
            if place is not None:
                break
        kept, at = [], 0
        for start, end in spans:
            kept.append(line[at:start].rstrip(" "))
            at = end
        kept.append(line[at:])
        lines.append("".join(kept).rstrip())
        places.append(place)
    return lines, places


def loc_spans(line: str) -> list[tuple[int, int]]:
    """Where each `loc(...)` of one MLIR line starts and ends (end exclusive); strings are skipped, not searched."""
    spans: list[tuple[int, int]] = []
    i, size = 0, len(line)
    while i < size:
        at = line.find("loc(", i)
        quote = line.find('"', i)
        if at < 0:
            break
        if 0 <= quote < at:
            i = _string_end(line, quote)
            continue
        if at > 0 and line[at - 1] in _IDENTIFIER:
            i = at + 4
            continue
        end = _closing(line, at + 3)
        if end is None:
            break  # not IR a printer wrote: the rest is kept as it is
        spans.append((at, end + 1))
        i = end + 1
    return spans


def _string_end(line: str, start: int) -> int:
    """The index just after the string that opens at `start` (the line's end when it is not closed)."""
    i = start + 1
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == '"':
            return i + 1
        i += 1
    return len(line)


def _closing(line: str, open_at: int) -> int | None:
    depth, i = 0, open_at
    while i < len(line):
        c = line[i]
        if c == '"':
            i = _string_end(line, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


# -- LLVM IR ------------------------------------------------------------------------------------------------


def _llvm_locations(raw: list[str]) -> list[Where | None]:
    metadata: dict[str, str] = {}
    for line in raw:
        match = _LLVM_METADATA.match(line) if line.startswith("!") else None
        if match:
            metadata[match.group(1)] = match.group(2)
    memo: dict[str, Where | None] = {}

    def field(node: str, name: str) -> str | None:
        match = _DI_FIELD[name].search(metadata.get(node, ""))
        return match.group(1) if match else None

    def file_of(scope: str | None) -> str | None:
        for _ in range(_MAX_DEPTH):  # lexical blocks point to their subprogram, which names the file
            if scope is None:
                return None
            node = metadata.get(scope, "")
            if "!DIFile(" in node:
                name = _DI_STRING["filename"].search(node)
                folder = _DI_STRING["directory"].search(node)
                if name is None:
                    return None
                path = _unescape(name.group(1))
                return path if path.startswith("/") or folder is None else f"{_unescape(folder.group(1))}/{path}"
            scope = field(scope, "file") or field(scope, "scope")
        return None

    def location(node: str) -> Where | None:
        if node not in memo:
            chain: list[Where] = []
            current: str | None = node
            for _ in range(_MAX_DEPTH):
                if current is None or "!DILocation(" not in metadata.get(current, ""):
                    break
                line = _DI_LINE.search(metadata[current])
                path = file_of(field(current, "scope"))
                if line and path and int(line.group(1)) > 0:  # line 0: compiler-made code of no line
                    chain.append((path, int(line.group(1))))
                current = field(current, "inlinedAt")
            memo[node] = _choose(chain)
        return memo[node]

    places: list[Where | None] = []
    for line in raw:
        match = _LLVM_DBG.search(line) if "!dbg" in line else None
        places.append(location(match.group(1)) if match else None)
    return places


# -- PTX and AMDGCN -----------------------------------------------------------------------------------------


def _asm_locations(raw: list[str]) -> list[Where | None]:
    files: dict[str, str] = {}
    for line in raw:  # PTX names its files after the code, AMDGCN before it
        match = _ASM_FILE.match(line) if ".file" in line else None
        if match:
            first, second = _unescape(match.group(2)), match.group(3)
            # AMDGCN (DWARF 5) writes the folder and the name apart; PTX the whole path.
            files[match.group(1)] = f"{first}/{_unescape(second)}" if second is not None else first
    current: Where | None = None
    places: list[Where | None] = []
    for line in raw:
        stripped = line.lstrip()
        if stripped.startswith(".loc"):
            match = _ASM_LOC.match(line)
            if match:
                path = files.get(match.group(1))
                current = (path, int(match.group(2))) if path and int(match.group(2)) > 0 else None
        elif stripped.startswith(("}", ".section", ".func", ".entry", ".visible", ".globl", ".amdhsa")):
            current = None  # a new function or section: what the last .loc said does not carry over
        places.append(current if stripped and not stripped.startswith(("//", ";", ".")) else None)
    return places
