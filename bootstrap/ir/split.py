"""Split Triton's IR dumps into one file per pass.

With MLIR_ENABLE_DUMP=1 Triton's MLIR pass manager prints, before each pass,
    // -----// IR Dump Before <Pass>: <arg> ('<op>' operation[: @<name>]) //----- //
(older MLIR: `<Pass> (<arg>)`) and the module, to stderr. LLVM_IR_ENABLE_DUMP=1 prints
`; *** IR Dump After <Pass> on <function> ***` sections of LLVM IR, and NVPTX_ENABLE_DUMP /
AMDGCN_ENABLE_DUMP print `// -----// NVPTX Dump //----- //` (or AMDGCN) and the assembly, to stdout.

`DumpSplitter` reads one stream line by line and separates dump sections from the program's own
output, which it hands back untouched so that it can be forwarded. A section ends at the next
header, at the end of the stream, or at the first line outside any brace that cannot be IR (a
Python warning, the program's own print). It is pure: no I/O, fed with text, unit-testable on real
dumps. `DumpWriter` writes the sections to `NNNN-<pass>.<ext>` files and the index.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.io.writes import replace_json, replace_text
from bootstrap.ir.header import parse_header

# Lines that can appear outside any brace inside a dump (MLIR, LLVM IR, PTX, AMDGCN, pass-manager log).
_IR_TOP_LEVEL = re.compile(
    r"""^(?:
        \s*$                                  # blank
      | \s                                    # indented
      | //|;|\#|!|@|%|\$                      # comments, aliases, metadata, globals, labels
      | [{}()\]]\s*$ | \}                     # lone braces, closing lines (`} loc(#loc)`)
      | \.[A-Za-z_]                           # directives: .version .entry .text .amdhsa_kernel
      | [\w.$@%"-]+:\s*(?:(?://|;).*)?$       # labels: `add_kernel:  ; @add_kernel`, `$L__BB0_2:`
      | ---\s*$ | \.\.\.\s*$ | amdhsa\.       # AMDGPU metadata (YAML)
      | bb\.\d+ | \d+B\s                     # machine IR blocks, slot indexes
      | (?:Function\ Live\ Ins|Frame\ Objects|Constant\ Pool|Jump\ Tables):  # machine IR function parts
      | Printing\ <null>
      | \{-\# | \#-\}                         # MLIR external resources
      | (?:module|"builtin\.module"|builtin\.module|tt\.func|llvm\.\w+|func\.func|gpu\.module)\b
      | (?:define|declare|attributes|target|source_filename|module\ asm)\b
      | Running\ (?:pass|analysis)|Invalidating\ |Clearing\ all\ analysis|Skipping\ pass
    )""",
    re.X,
)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_KERNEL_IN_BODY = (
    re.compile(r"^\s*(?:tt\.func|llvm\.func|func\.func)\s+(?:public\s+|private\s+|internal\s+)*@\"?([\w$.]+)"),
    re.compile(r"^define\s[^@]*@\"?([\w$.]+)"),
    re.compile(r"^\.(?:visible\s+)?\.?entry\s+([\w$]+)"),
    re.compile(r"^\s*\.amdhsa_kernel\s+([\w$.]+)"),
    re.compile(r"^# Machine code for function ([\w$.]+):"),
)

# ttg.target from Triton 3.3 on, triton_gpu.target before.
_TARGET_IN_BODY = re.compile(
    r'(?:ttg|triton_gpu)\.target = "([^"]+)"|^\.target\s+(sm_\w+)|\.amdgcn_target\s+"[^"]*-(gfx\w+)"'
)

KIND_EXTENSIONS = {"mlir": "mlir", "llvm": "ll", "nvptx": "ptx", "amdgcn": "amdgcn", "other": "txt"}


@dataclass
class DumpSection:
    """One dump: the IR printed before (or after) one pass, or the final assembly."""

    number: int
    kind: str  # mlir | llvm | nvptx | amdgcn | other
    pass_name: str
    header: str
    when: str | None = None  # before | after
    pass_arg: str | None = None  # the pass's command-line name: tritongpu-coalesce
    op: str | None = None
    kernel: str | None = None
    target: str | None = None  # "cuda:90" (ttg.target), "sm_90a" (PTX), "gfx942" (AMDGCN)
    lines: list[str] = field(default_factory=list)
    options: str | None = None  # the pass's options, where the header prints them (newer MLIR)
    failed: bool = False  # "IR Dump After <Pass> Failed"

    @property
    def extension(self) -> str:
        return KIND_EXTENSIONS[self.kind]

    @classmethod
    def of_header(cls, number: int, line: str, header: dict[str, str | None]) -> DumpSection:
        """A section, still without its body, from its header line and what parse_header read in it."""
        return cls(
            number=number,
            kind=str(header["kind"]),
            pass_name=str(header["pass"]),
            header=line,
            when=header["when"],
            pass_arg=header["arg"],
            op=header["op"],
            kernel=header["kernel"],
            options=header["options"],
            failed=header["failed"] is not None,
        )

    def text(self) -> str:
        body = list(self.lines)
        while body and not body[-1].strip():
            body.pop()
        return self.header + "\n" + "".join(line + "\n" for line in body)


class Counter:
    """Numbers sections across streams (stdout and stderr) in the order their headers arrive."""

    def __init__(self) -> None:
        self._next = 0
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            self._next += 1
            return self._next


class DumpSplitter:
    """Feed lines (with their line endings); get back the program's own lines and finished sections."""

    def __init__(self, counter: Callable[[], int] | None = None) -> None:
        self._counter = counter or Counter()
        self._section: DumpSection | None = None
        self._depth = 0
        self._last_kernel: str | None = None

    def _finish(self, section: DumpSection) -> DumpSection:
        # Dumps of a region or basic block name no function; Triton compiles one kernel at a time
        # per stream, so they belong to the kernel of the dump before.
        if section.kernel is None:
            section.kernel = self._last_kernel
        self._last_kernel = section.kernel
        return section

    def feed(self, line: str) -> list[DumpSection | str]:
        """Events for one line: finished sections (DumpSection) and lines to forward (str, as given)."""
        text = line.rstrip("\r\n")
        events: list[DumpSection | str] = []
        header = parse_header(text)
        if header is not None:
            if self._section is not None:
                events.append(self._finish(self._section))
            self._section = DumpSection.of_header(self._counter(), text, header)
            self._depth = 0
            return events
        section = self._section
        if section is None:
            return [line]
        if self._depth == 0 and not _IR_TOP_LEVEL.match(text):
            # Outside any brace and not IR: the program speaks again; the dump is over.
            self._section = None
            return [self._finish(section), line]
        section.lines.append(text)
        if section.kernel is None:
            section.kernel = _kernel_in(text)
        if section.target is None:
            found = _TARGET_IN_BODY.search(text)
            if found:
                section.target = next(g for g in found.groups() if g)
        stripped = _STRING.sub('""', text)
        self._depth = max(0, self._depth + stripped.count("{") - stripped.count("}"))
        return events

    def close(self) -> list[DumpSection | str]:
        """End of stream: the open section, if any."""
        section, self._section = self._section, None
        return [self._finish(section)] if section is not None else []


def describe_body(lines: Iterable[str]) -> tuple[str | None, str | None]:
    """The kernel and the target a dump's body names first (either None when it names none)."""
    kernel = target = None
    for line in lines:
        if kernel is None:
            kernel = _kernel_in(line)
        if target is None:
            found = _TARGET_IN_BODY.search(line)
            if found:
                target = next(g for g in found.groups() if g)
        if kernel is not None and target is not None:
            break
    return kernel, target


def _kernel_in(line: str) -> str | None:
    for pattern in _KERNEL_IN_BODY:
        match = pattern.match(line)
        if match:
            return match.group(1)
    return None


def safe_name(text: str) -> str:
    """`text` as one file-name part: letters, digits, `_.-` only, never a path, at most 80 characters."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")
    return name[:80] or "dump"


@dataclass
class IndexRow:
    number: int
    when: str | None
    pass_name: str
    kernel: str | None
    op: str | None
    file: str
    lines: int
    kind: str
    target: str | None = None
    arg: str | None = None
    options: str | None = None
    failed: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number,
            "pass": self.pass_name,
            "arg": self.arg,
            "options": self.options,
            "failed": self.failed,
            "when": self.when,
            "kernel": self.kernel,
            "op": self.op,
            "target": self.target,
            "kind": self.kind,
            "file": self.file,
            "lines": self.lines,
        }


class DumpWriter:
    """Writes each finished section to `<folder>/NNNN-<pass>.<ext>` and keeps the index (thread-safe)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.rows: list[IndexRow] = []
        self._lock = threading.Lock()

    def write(self, section: DumpSection) -> IndexRow:
        name = f"{section.number:04d}-{safe_name(section.pass_name)}.{section.extension}"
        text = section.text()
        replace_text(self.folder / name, text, verbatim=True)
        row = IndexRow(
            number=section.number,
            when=section.when,
            pass_name=section.pass_name,
            kernel=section.kernel,
            op=section.op,
            file=name,
            lines=text.count("\n"),
            kind=section.kind,
            target=section.target,
            arg=section.pass_arg,
            options=section.options,
            failed=section.failed,
        )
        with self._lock:
            self.rows.append(row)
        return row

    def write_index(self, command: list[str], returncode: int | None) -> None:
        """index.txt (for people) and index.json (for scripts), passes in order."""
        rows = sorted(self.rows, key=lambda r: r.number)
        replace_json(
            self.folder / "index.json",
            {"command": command, "returncode": returncode, "passes": [r.to_json() for r in rows]},
        )
        table = [["#", "when", "pass", "kernel", "target", "lines", "file"]]
        for r in rows:
            table.append(
                [str(r.number), r.when or "-", r.pass_name, r.kernel or "-", r.target or "-", str(r.lines), r.file]
            )
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        lines = [
            "  ".join(
                cell.rjust(widths[i]) if i in (0, 5) else cell.ljust(widths[i]) for i, cell in enumerate(row)
            ).rstrip()
            for row in table
        ]
        replace_text(self.folder / "index.txt", "\n".join(lines) + "\n")
