"""IR text as two dumps are compared: without location noise, values renamed, and as a unified diff.

Locations say where in the Python source an op came from (`loc("k.py":12:5)`, `#loc3 = loc(...)`,
LLVM's `!dbg !12`, PTX's `.loc 1 12 5`). They change when a line moves in the kernel's file or the
file is elsewhere, not when the compiler does something else, so by default they are left out of a
comparison. SSA value names are the same kind of noise: with line info on, Triton names values after
the kernel's variables (`%offs_13`, `%x_24`); with it off (`TRITON_DISABLE_LINE_INFO=1`, which
`run --dump-ir` sets) the printer numbers them (`%12`). So by default values are renamed in the
order they first appear (`%v0`, `%v1`, ...): two dumps of one compile, one with line info and one
without, compare equal. Every function here is linear in the text: it reads dumps of any size and
any content.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

_LOC_ALIAS = re.compile(r"^#loc[\w.$-]*\s*=\s*loc\(")  # `#loc3 = loc("k.py":12:5)`, a whole line
_LLVM_DBG = re.compile(r",\s*!dbg\s+!\d+")
_LLVM_DEBUG_METADATA = re.compile(r"^!\d+\s*=\s*(?:distinct\s+)?!DI")
_ASM_LOCATION = re.compile(r"^\s*\.(?:loc|file)\b")
_IDENTIFIER = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$#%@")
# A value is `%` and every identifier character after it: MLIR's and LLVM's lexers end `%12` at a digit's
# end, but no printed IR has a letter right after one, and taking the whole run keeps the renaming
# idempotent on any text (`%0A` would become `%v0A`, a new name).
_STRING_OR_VALUE = re.compile(r'"(?:[^"\\]|\\.)*"|%[\w$.\-]+')


def strip_locations(text: str, kind: str = "mlir") -> str:
    """`text` without location information, line by line (kind: mlir | llvm | nvptx | amdgcn | other)."""
    out: list[str] = []
    for line in text.split("\n"):
        if kind == "mlir":
            if _LOC_ALIAS.match(line):
                continue
            out.append(_without_loc_calls(line))
        elif kind == "llvm":
            if _LLVM_DEBUG_METADATA.match(line):
                continue
            out.append(_LLVM_DBG.sub("", line))
        elif kind in ("nvptx", "amdgcn"):
            if not _ASM_LOCATION.match(line):
                out.append(line)
        else:
            out.append(line)
    return "\n".join(out)


def _without_loc_calls(line: str) -> str:
    """One MLIR line without its ` loc(...)` annotations; strings are left alone."""
    if "loc(" not in line:
        return line
    pieces: list[str] = []
    start = 0
    for i in _outside_strings(line):
        if i < start or line[i] != "l" or not line.startswith("loc(", i):
            continue
        if i > 0 and line[i - 1] in _IDENTIFIER:
            continue
        end = _closing_paren(line, i + 3)
        if end is None:
            break  # not IR the printer wrote: keep the rest as it is (and stay linear)
        pieces.append(line[start:i].rstrip(" "))
        start = end + 1
    pieces.append(line[start:])
    return "".join(pieces)


def _outside_strings(line: str, start: int = 0) -> Iterator[int]:
    """The positions of `line` from `start` that are not inside a "..." string (escapes honoured)."""
    i, in_string = start, False
    while i < len(line):
        c = line[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        else:
            yield i
        i += 1


def _closing_paren(line: str, open_at: int) -> int | None:
    """The index of the `)` that closes the `(` at `open_at`, skipping strings; None when the line ends first."""
    depth = 0
    for i in _outside_strings(line, open_at):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def rename_values(text: str) -> str:
    """`text` with each SSA value (`%name`, `%12`) renamed `%v<N>` in the order of first appearance;
    strings are left alone. Two texts equal up to a renaming of values become equal."""
    names: dict[str, str] = {}

    def renamed(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"'):
            return token
        return names.setdefault(token, f"%v{len(names)}")

    return _STRING_OR_VALUE.sub(renamed, text)


def comparable(text: str, kind: str, keep_locations: bool, keep_names: bool = True) -> str:
    """What two dumps compare: the text (without locations unless asked; MLIR and LLVM IR values renamed
    unless keep_names), without MLIR's `//` comments (which no compiler prints, a file written by hand
    may hold), trailing blanks dropped."""
    body = text if keep_locations else strip_locations(text, kind)
    lines = [line.rstrip() for line in body.split("\n")]
    if kind == "mlir":
        lines = [line for line in _without_resources(lines) if not line.lstrip().startswith("//")]
    joined = "\n".join(lines).strip("\n")
    return joined if keep_names or kind not in ("mlir", "llvm") else rename_values(joined)


def _without_resources(lines: list[str]) -> list[str]:
    """MLIR lines without a `{-# ... #-}` block (a reproducer's pipeline: not IR, and not printed back)."""
    kept: list[str] = []
    inside = False
    for line in lines:
        stripped = line.strip()
        if not inside and stripped.startswith("{-#"):
            inside = "#-}" not in stripped
            continue
        if inside:
            inside = not stripped.startswith("#-}")
            continue
        kept.append(line)
    return kept


def unified_diff(before: str, after: str, before_label: str, after_label: str, context: int = 3) -> str:
    """A unified diff of two texts ('' when they are equal)."""
    lines = difflib.unified_diff(
        before.split("\n"), after.split("\n"), fromfile=before_label, tofile=after_label, n=context, lineterm=""
    )
    return "\n".join(lines) + "\n" if before != after else ""


def changed_lines(diff: str) -> int:
    """How many lines a unified diff removes or adds."""
    return sum(1 for line in diff.split("\n") if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))
