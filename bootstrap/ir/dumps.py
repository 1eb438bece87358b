"""Read an IR dump back: a folder `tritondev run --dump-ir` wrote, or a file of raw dump output.

A dump folder holds index.json (the passes in order, with their kernel) and one file per dump whose
first line is the dump's header (bootstrap/ir/split.py writes both). A raw file is what
MLIR_ENABLE_DUMP=1 printed (a captured stderr, an MLIR_DUMP_PATH file, one NNNN-<pass>.mlir file):
it is split the same way `tritondev run` splits a stream. Reading never runs anything and never
writes; what is not a dump is refused with a UsageError that says what is wrong with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import NotRegularFile, read_regular
from bootstrap.core.suggest import closest
from bootstrap.ir.header import parse_header
from bootstrap.ir.split import DumpSection, DumpSplitter, describe_body

INDEX = "index.json"
DUMPS_FOLDER = "dumps"  # <workspace>/dumps/<timestamp>/, where `tritondev run --dump-ir` writes by default
_DUMP_FIX = "give a folder `tritondev run --dump-ir` wrote, or a file of MLIR_ENABLE_DUMP=1 output"


class DumpError(UsageError):
    """The dump is missing, is not a dump, or lacks what was asked of it (exit 2)."""


@dataclass(frozen=True)
class Stage:
    """One dumped IR: the module before (or after) one pass, or the final assembly."""

    number: int
    kind: str  # mlir | llvm | nvptx | amdgcn | other
    when: str | None  # before | after | None
    name: str  # TritonGPUCoalesce
    arg: str | None  # tritongpu-coalesce: the pass's command-line name
    options: str | None  # "num-warps=4 target=cuda:90", where the header prints them
    op: str | None  # the operation the pass ran on: builtin.module, tt.func
    kernel: str | None
    target: str | None
    failed: bool
    header: str
    body: str
    origin: str  # the file it was read from (a dump folder's file, or FILE:LINE of a raw dump)

    @property
    def key(self) -> str:
        """What lines up one pipeline's passes with another's: the argument (stable across MLIR's
        renames such as Canonicalizer -> CanonicalizerPass), else the name."""
        return self.arg or self.name

    @property
    def is_pass_input(self) -> bool:
        """The IR right before an MLIR pass: what `triton-opt -<pass>` replays."""
        return self.kind == "mlir" and self.when == "before"

    @property
    def is_assembly(self) -> bool:
        return self.kind in ("nvptx", "amdgcn")

    def label(self) -> str:
        name = self.arg or self.name
        return f"#{self.number} {name}" + (f" ({self.name})" if self.arg and self.name != self.arg else "")


@dataclass(frozen=True)
class Dump:
    path: Path
    stages: tuple[Stage, ...]

    def kernels(self) -> list[str]:
        return list(dict.fromkeys(s.kernel for s in self.stages if s.kernel))

    def of_kernel(self, kernel: str | None) -> list[Stage]:
        """The kernel's stages in order; all of them when the dump names no kernel (kernel None)."""
        if kernel is None:
            return list(self.stages)
        return [s for s in self.stages if s.kernel == kernel]

    def pick_kernel(self, wanted: str | None) -> str | None:
        """`wanted`, checked against the dump; without it, the dump's only kernel."""
        kernels = self.kernels()
        if wanted is not None:
            if wanted not in kernels:
                close = closest(wanted, kernels)
                hint = f" (did you mean '{close}'?)" if close else ""
                raise DumpError(
                    f"kernel '{wanted}' is not in the dump {self.path}{hint}; it holds: {', '.join(kernels) or 'none'}",
                    fix=f"use --kernel {close or (kernels[0] if kernels else 'NAME')}",
                )
            return wanted
        if len(kernels) > 1:
            raise DumpError(
                f"the dump {self.path} holds {len(kernels)} kernels: {', '.join(kernels)}",
                fix=f"name one with --kernel, e.g. --kernel {kernels[0]}",
            )
        return kernels[0] if kernels else None


def latest_dump(workspace_root: Path) -> Path:
    """The newest dump folder under <workspace>/dumps (by its index.json)."""
    folder = workspace_root / DUMPS_FOLDER
    found: list[tuple[float, str, Path]] = []
    try:
        children = list(folder.iterdir())
    except OSError:
        children = []
    for child in children:
        try:
            found.append(((child / INDEX).stat().st_mtime, child.name, child))
        except OSError:
            continue
    if not found:
        raise DumpError(
            f"no IR dump in {folder}",
            fix="make one with `tritondev run --dump-ir -- python my_kernel.py`, or give it with --dump DIR",
        )
    return max(found)[2]


def require_passes(dump: Dump, chosen: str) -> None:
    """A DumpError saying the dump is empty, which dump it is (`chosen`: how it was picked) and what its
    run did, when it holds no MLIR pass at all (a run that compiled nothing, or failed first)."""
    if any(s.is_pass_input for s in dump.stages):
        return
    record: Any = None
    if dump.path.is_dir():
        try:
            record = json.loads(_read_text(dump.path / INDEX, dump.path))
        except (DumpError, ValueError, RecursionError):
            record = None
    ran = ""
    if isinstance(record, dict) and isinstance(record.get("command"), list):
        code = record.get("returncode")
        status = f"exited with status {code}" if isinstance(code, int) else "did not finish"
        ran = f": its command (`{' '.join(map(str, record['command']))}`) {status} before Triton compiled a kernel"
    raise DumpError(
        f"the dump {dump.path} ({chosen}) is empty: it holds no MLIR pass{ran}",
        fix="make a dump of a run that compiles the kernel (`tritondev run --dump-ir -- python my_kernel.py`), "
        "or give another with --dump DIR",
    )


def load_dump(path: Path) -> Dump:
    """The stages of the dump at `path` (a dump folder or a raw dump file), in the order they were dumped."""
    if path.is_dir():
        return Dump(path, tuple(_read_folder(path)))
    if not path.exists():
        raise DumpError(f"no dump at {path}: it does not exist", fix=_DUMP_FIX)
    text = _read_text(path, path)
    stages = split_raw(text, path.name)
    if not stages:
        raise DumpError(f"{path} holds no IR dump (no `// -----// IR Dump ...` header)", fix=_DUMP_FIX)
    return Dump(path, tuple(stages))


def split_raw(text: str, origin: str) -> list[Stage]:
    """The dumps in raw dump output, as `tritondev run --dump-ir` would have split them."""
    splitter = DumpSplitter()
    sections: list[DumpSection] = []
    starts: dict[int, int] = {}
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if parse_header(line.rstrip("\r\n")) is not None:
            starts[len(starts) + 1] = number
        sections += [e for e in splitter.feed(line) if isinstance(e, DumpSection)]
    sections += [e for e in splitter.close() if isinstance(e, DumpSection)]
    return [_stage(s, "\n".join(s.lines), f"{origin}:{starts.get(s.number, 0)}", s.kernel, s.target) for s in sections]


def _read_folder(folder: Path) -> list[Stage]:
    index_path = folder / INDEX
    if not index_path.is_file():
        raise DumpError(f"{folder} is not a dump folder: it has no {INDEX}", fix=_DUMP_FIX)
    try:
        index = json.loads(_read_text(index_path, folder))
    except (ValueError, RecursionError):
        raise DumpError(f"{index_path} is not valid JSON", fix=_DUMP_FIX) from None
    rows = index.get("passes") if isinstance(index, dict) else None
    if not isinstance(rows, list):
        raise DumpError(f"{index_path} has no list of passes", fix=_DUMP_FIX)
    stages = [_read_row(folder, row, position) for position, row in enumerate(rows, start=1)]
    return sorted(stages, key=lambda s: s.number)


def _read_row(folder: Path, row: Any, position: int) -> Stage:
    where = f"entry {position} of {folder / INDEX}"
    if not isinstance(row, dict):
        raise DumpError(f"{where} is not an object", fix=_DUMP_FIX)
    name = row.get("file")
    number = row.get("number")
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
        raise DumpError(f"{where} names no file of the folder", fix=_DUMP_FIX)
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= MAX_PASS_NUMBER:
        raise DumpError(f"{where} has no pass number (0 to {MAX_PASS_NUMBER})", fix=_DUMP_FIX)
    path = folder / name
    if not path.is_file():
        raise DumpError(f"{where} lists {name}, which is missing", fix=_DUMP_FIX)
    first, _, body = _read_text(path, folder).partition("\n")
    header = parse_header(first.rstrip("\r"))
    if header is None:
        raise DumpError(f"{path} does not start with a dump header", fix=_DUMP_FIX)
    section = DumpSection.of_header(number, first.rstrip("\r"), header)
    found_kernel, found_target = describe_body(body.splitlines())
    # The index's kernel wins: `run` gave dumps of a region (which name no function) to the kernel before.
    kernel = row.get("kernel") if isinstance(row.get("kernel"), str) else section.kernel or found_kernel
    target = found_target or (row.get("target") if isinstance(row.get("target"), str) else None)
    return _stage(section, body.rstrip("\n"), name, kernel, target)


def _stage(section: DumpSection, body: str, origin: str, kernel: str | None, target: str | None) -> Stage:
    return Stage(
        number=section.number,
        kind=section.kind,
        when=section.when,
        name=section.pass_name,
        arg=section.pass_arg,
        options=section.options,
        op=section.op,
        kernel=kernel,
        target=target,
        failed=section.failed,
        header=section.header,
        body=body,
        origin=origin,
    )


# Far above the passes of any real compile (each number names files and folders).
MAX_PASS_NUMBER = 999_999
# Far above any real dump (a whole compile of a large kernel is tens of MiB); bigger is not a dump.
MAX_DUMP_BYTES = 1 << 30


def _read_text(path: Path, dump: Path) -> str:
    """A dump file's text. Only a regular file is read (a FIFO or device named as the dump must not
    hang or fill memory), and at most MAX_DUMP_BYTES of it."""
    try:
        data = read_regular(path, limit=MAX_DUMP_BYTES + 1)
    except NotRegularFile:
        raise DumpError(f"{path} is not a regular file", fix="give a dump folder or a dump file") from None
    except OSError as exc:
        raise DumpError(f"cannot read {path}: {exc.strerror}", fix=f"check the permissions of {dump}") from None
    if len(data) > MAX_DUMP_BYTES:
        raise DumpError(
            f"{path} is larger than {MAX_DUMP_BYTES >> 20} MiB: not an IR dump",
            fix="give the dump folder `tritondev run --dump-ir` wrote, or a file of its output",
        )
    return data.decode("utf-8", "surrogateescape")
