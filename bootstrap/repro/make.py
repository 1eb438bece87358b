"""`tritondev repro make KERNEL`: one captured record as a standalone folder, and with --check, run there.

The folder (--out, default <capture>/repros/<record id>/) holds:

    kernel.py           the kernel made standalone at capture time (imports triton, torch and what it imports)
    repro.py            header + LAUNCH + the runner (bootstrap/repro/render.py)
    io/<n>.in, .out     the recorded tensor storages the record names (--save-io)
    .tritondev-repro    the list of files above: what a later `repro make` into the folder may replace

It is written only into a folder that is new, empty, or holds that list; a later make removes only the
files the list names (plain names of those patterns, regular files inside the folder), never anything else.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.context import AppContext
from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import is_regular, read_regular
from bootstrap.core.io import writes
from bootstrap.core.target import inside
from bootstrap.repro.records import KernelRecord
from bootstrap.repro.render import repro_text
from bootstrap.repro.store import Capture, select
from bootstrap.repro.verdict import Verdict, parse_verdict

MARKER = ".tritondev-repro"
OWN_FILE = re.compile(r"^(kernel\.py|repro\.py|io/[0-9]{1,6}\.(in|out))$")
SOURCE_LIMIT = 16 << 20
CHECK_TIMEOUT = 1800.0


@dataclass
class MakeReport:
    record: KernelRecord
    folder: Path
    files: list[str]
    verdict: Verdict | None = None


def _previous_files(folder: Path) -> list[str]:
    """The files a previous make wrote here (its list), or [] for a new or empty folder; else UsageError."""
    if not folder.exists():
        return []
    if folder.is_symlink() or not folder.is_dir():
        raise UsageError(f"{folder} is not a folder", fix="choose another --out")
    marker = folder / MARKER
    if not is_regular(marker) or marker.is_symlink():
        if any(folder.iterdir()):
            raise UsageError(
                f"{folder} already holds files that `tritondev repro make` did not write",
                fix="choose a new or empty --out",
            )
        return []
    listed = read_regular(marker, 1 << 20).decode("utf-8", "replace").splitlines()
    return [name for name in listed if OWN_FILE.match(name)]


def _remove_stale(folder: Path, previous: list[str], keep: set[str]) -> None:
    for name in previous:
        if name in keep:
            continue
        path = folder / name
        try:
            if stat.S_ISREG(os.lstat(path).st_mode) and not path.parent.is_symlink():
                os.unlink(path)
        except FileNotFoundError:
            continue


def _source(record_folder: Path, name: str) -> Path:
    path = record_folder / name
    if path.is_symlink() or not is_regular(path):
        raise UsageError(
            f"the capture has no regular file {path}", fix="capture the program again: tritondev repro capture -- ..."
        )
    return path


def write_repro(capture: Capture, record: KernelRecord, out: Path | None) -> MakeReport:
    folder = (out or capture.folder / "repros" / record.id).absolute()
    previous = _previous_files(folder)
    record_folder = capture.folder / "kernels" / record.id
    kernel_source = read_regular(_source(record_folder, "kernel.py"), SOURCE_LIMIT).decode("utf-8", "replace")
    io_sources = {name: _source(record_folder, name) for name in record.io_files}
    captured_by = f"`{capture.info.command_text}` ({capture.folder})"
    text = repro_text(record, folder, captured_by, inside.script_text(inside.REPRO_RUNNER))
    files = ["kernel.py", "repro.py", *record.io_files]
    folder.mkdir(parents=True, exist_ok=True)
    writes.anchor(folder)
    _remove_stale(folder, previous, set(files))
    writes.replace_text(folder / MARKER, "\n".join(files) + "\n")
    writes.replace_text(folder / "kernel.py", kernel_source, verbatim=True)
    for name, source in io_sources.items():
        writes.replace_copy(folder / name, source)
    writes.replace_text(folder / "repro.py", text, verbatim=True, permissions=0o755)
    return MakeReport(record, folder, files)


def check_repro(ctx: AppContext, folder: Path) -> Verdict:
    """Run the repro in the target environment and read its answer."""
    python = ctx.target_python().executable
    result = ctx.runner.capture(
        [str(python), str(folder / "repro.py"), "--json"],
        step="repro-check",
        check=False,
        timeout=CHECK_TIMEOUT,
        cwd=folder,
    )
    return parse_verdict(result.returncode, result.stdout or "", result.stderr or "")


def make_repro(ctx: AppContext, capture: Capture, ref: str, out: Path | None, check: bool) -> MakeReport:
    record = select(capture.records, ref)
    if ctx.dry_run:
        folder = (out or capture.folder / "repros" / record.id).absolute()
        return MakeReport(record, folder, ["kernel.py", "repro.py", *record.io_files])
    report = write_repro(capture, record, out)
    if check:
        report.verdict = check_repro(ctx, report.folder)
    return report
