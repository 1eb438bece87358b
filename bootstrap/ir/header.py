"""Dump headers: the line before each dump, and what it says about the pass.

MLIR prints `// -----// IR Dump Before <Pass>: <arg>{<options>} ('<op>' operation[: @<name>]) //----- //`
(older MLIR: `<Pass> (<arg>)`, without options), `IR Dump After <Pass> Failed ...` for a failing pass,
and Triton's passes print `// -----// <Who> internal IR Dump After: <Step>`. LLVM prints
`*** IR Dump Before|After <Pass> [(<arg>)] [on <function>] ***`; Triton's backends print
`// -----// NVPTX Dump //----- //` (or AMDGCN) before the assembly.
"""

from __future__ import annotations

import re

# Headers are read without patterns that backtrack (a line of a crashing program may be anything, and
# megabytes long): literal prefixes and suffixes, and anchored matches on what is left.
_MLIR_START, _MLIR_END = "// -----// ", "//----- //"
_LLVM_START = re.compile(r"^(?:;|#)?[ \t]*\*\*\* IR Dump (?P<when>Before|After) ")
_OP_SUFFIX = re.compile(r"\('(?P<op>[^']+)' operation(?::\s*@(?P<name>[^)]*))?\)")
_TARGET = re.compile(r"\[module\]|\(.*\)|\S+")


def _header(
    kind: str,
    when: str | None,
    pass_name: str,
    *,
    arg: str | None = None,
    op: str | None = None,
    kernel: str | None = None,
) -> dict[str, str | None]:
    return {
        "kind": kind,
        "when": when,
        "pass": pass_name,
        "arg": arg,
        "op": op,
        "kernel": kernel,
        "options": None,
        "failed": None,
    }


def parse_header(line: str) -> dict[str, str | None] | None:
    """The fields of a dump header line, or None when `line` is not one."""
    llvm = _LLVM_START.match(line)
    if llvm:
        return _llvm_header(line[llvm.end() :], llvm.group("when").lower())
    if not line.startswith(_MLIR_START):
        return None
    title = line[len(_MLIR_START) :].strip()
    if title.endswith(_MLIR_END):
        title = title[: -len(_MLIR_END)].strip()
    if title in ("NVPTX Dump", "AMDGCN Dump"):
        kind = "nvptx" if title.startswith("NVPTX") else "amdgcn"
        return _header(kind, None, title.split()[0])
    when = next((w for w in ("Before", "After") if title.startswith(f"IR Dump {w} ")), None)
    if when is None:
        # e.g. "SoftwarePipeliner internal IR Dump After: LowerLoops"
        at = title.find("internal IR Dump ")
        rest = title[at + len("internal IR Dump ") :]
        inner = next((w for w in ("Before", "After") if rest.startswith(w)), None)
        if at < 0 or inner is None:
            return _header("mlir", None, title)
        what = rest[len(inner) :].removeprefix(":").strip()
        name = "-".join(p for p in (title[:at].strip(), what) if p)
        return _header("mlir", inner.lower(), name)
    rest = title[len(f"IR Dump {when} ") :].rstrip()
    op = kernel = None
    at = rest.rfind("('")
    suffix = _OP_SUFFIX.fullmatch(rest, at) if at >= 0 else None
    if suffix:
        op, kernel = suffix.group("op"), suffix.group("name")
        rest = rest[:at]
    name, arg = _name_and_argument(rest.strip())
    failed = None
    if name.endswith(" Failed"):  # "IR Dump After <Pass> Failed": the IR the failing pass left
        name, failed = name[: -len(" Failed")], "true"
    arg, options = split_pass_argument(arg)
    header = _header("mlir", when.lower(), name, arg=arg, op=op, kernel=kernel)
    header.update(options=options, failed=failed)
    return header


def _name_and_argument(text: str) -> tuple[str, str | None]:
    """`Name: arg{options}` (newer MLIR) or `Name (arg)` (older) -> (Name, the rest); the name holds no `:`, `(`."""
    colon, paren = text.find(":"), text.find("(")
    if colon > 0 and (paren < 0 or colon < paren):
        return text[:colon].strip(), text[colon + 1 :].strip()
    if paren > 0 and text.endswith(")") and text[paren - 1].isspace():
        return text[:paren].strip(), text[paren + 1 : -1]
    return text, None


def _llvm_header(tail: str, when: str) -> dict[str, str | None] | None:
    """`<Pass> [(<arg>)] [on <function>] ***[:]`, what follows LLVM's `*** IR Dump Before|After `."""
    tail = tail.rstrip().removesuffix(":").rstrip()
    if tail != "***" and not tail.endswith(" ***"):
        return None
    title = tail[:-4] if len(tail) > 3 else ""
    kernel = None
    at = title.rfind(" on ")
    if at > 0 and _TARGET.fullmatch(title, at + 4):
        target = title[at + 4 :]
        title = title[:at]
        if target != "[module]":
            kernel = target.strip("()").split(",")[0].strip() or None
    arg = None
    paren = title.rfind("(")
    if title.endswith(")") and paren > 0 and title[paren - 1].isspace() and ")" not in title[paren + 1 : -1]:
        title, arg = title[:paren].rstrip(), title[paren + 1 : -1]
    return _header("llvm", when, title, arg=arg, kernel=kernel)


def split_pass_argument(text: str | None) -> tuple[str | None, str | None]:
    """`convert-triton-to-tritongpu{num-warps=4 target=cuda:90}` -> (the pass argument, its options).

    Newer MLIR prints a pass's options in braces after its argument; older MLIR prints the argument alone.
    """
    if not text:
        return text or None, None
    text = text.strip()
    brace = text.find("{")
    if brace > 0 and text.endswith("}"):
        return text[:brace].strip() or None, text[brace + 1 : -1].strip() or None
    return text or None, None
