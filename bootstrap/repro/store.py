"""Captures on disk: where they are, what each holds, and which record a user's KERNEL names.

    <workspace>/repro/<YYYYmmdd-HHMMSS>/   one capture (or `capture --out DIR`)
        capture.json                        the command, its exit status, the options, the versions
        kernels/<pid>-<n>-<name>/           one record per distinct launch or failed compile
                                            (bootstrap/core/target/scripts/tritondev_capture_io.py)
        hook-errors.txt                     what the hook itself could not do
        repros/<pid>-<n>-<name>/            what `repro make` writes by default

Reading never follows a file that is not regular and never reads more than a record's size limit; a record
that does not parse is reported with its reason, never fatal for the others.
"""

from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.json_fields import BadField, Fields
from bootstrap.repro.fields import RecordError
from bootstrap.repro.records import RECORD_ID, KernelRecord, parse_record

RECORD_LIMIT = 64 << 20  # bytes of one record.json
CAPTURE_FILE = "capture.json"


def captures_root(workspace_root: Path) -> Path:
    return workspace_root / "repro"


def new_capture_folder(root: Path) -> Path:
    """A fresh <root>/<timestamp>[-N] that does not exist yet."""
    base = root / time.strftime("%Y%m%d-%H%M%S")
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def is_capture(folder: Path) -> bool:
    return (folder / CAPTURE_FILE).is_file() and not (folder / CAPTURE_FILE).is_symlink()


def latest_capture(root: Path) -> Path | None:
    if not root.is_dir():
        return None
    found = sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and is_capture(p)), key=lambda p: p.name
    )
    return found[-1] if found else None


def choose_capture(root: Path, given: Path | None) -> Path:
    """--capture DIR, else the newest capture under the workspace; UsageError when there is none."""
    if given is not None:
        folder = given.absolute()
        if not is_capture(folder):
            raise UsageError(
                f"{folder} is not a capture (no {CAPTURE_FILE})",
                fix="give a folder `tritondev repro capture` wrote (--capture DIR), or leave "
                "--capture out for the newest one in the workspace",
            )
        return folder
    latest = latest_capture(root)
    if latest is None:
        raise UsageError(f"no capture in {root}", fix="capture one first: tritondev repro capture -- python train.py")
    return latest


@dataclass(frozen=True)
class CaptureInfo:
    """capture.json: the command captured, its exit status, when it started (None: not recorded)."""

    command: tuple[str, ...] | None = None
    returncode: int | None = None
    started: float | None = None

    @property
    def command_text(self) -> str:
        return " ".join(self.command) if self.command else "?"


def _capture_info(data: object) -> CaptureInfo:
    """What capture.json says, each field checked; a file not as written says nothing (never fatal)."""
    try:
        fields = Fields(data, CAPTURE_FILE)
        return CaptureInfo(
            fields.optional_texts("command"), fields.optional_integer("returncode"), fields.optional_number("started")
        )
    except BadField:
        return CaptureInfo()


@dataclass
class Capture:
    folder: Path
    info: CaptureInfo
    records: list[KernelRecord] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (record folder, why)
    hook_errors: list[str] = field(default_factory=list)


def _read_json(path: Path, limit: int) -> Any:
    data = read_regular(path, limit + 1)
    if len(data) > limit:
        raise RecordError(f"larger than {limit} bytes")
    try:
        return parse_json(data)
    except ValueError as exc:
        raise RecordError(f"not JSON ({exc})") from None


def load_capture(folder: Path) -> Capture:
    try:
        info = _capture_info(_read_json(folder / CAPTURE_FILE, 1 << 20))
    except (OSError, RecordError):
        info = CaptureInfo()
    capture = Capture(folder, info)
    kernels = folder / "kernels"
    entries = sorted(kernels.iterdir()) if kernels.is_dir() and not kernels.is_symlink() else []
    for entry in entries:
        if not RECORD_ID.match(entry.name) or entry.is_symlink() or not entry.is_dir():
            continue
        try:
            record = parse_record(_read_json(entry / "record.json", RECORD_LIMIT))
            if record.id != entry.name:
                raise RecordError(f"id: {record.id} is not its folder's name")
            capture.records.append(record)
        except (OSError, RecordError) as exc:
            capture.unreadable.append((entry.name, str(exc)))
    capture.records.sort(key=lambda r: (r.captured_at, r.id))
    try:
        text = read_regular(folder / "hook-errors.txt", 1 << 20).decode("utf-8", "replace")
        capture.hook_errors = text.splitlines()[-20:]
    except OSError:
        pass
    return capture


def select(records: list[KernelRecord], ref: str) -> KernelRecord:
    """The record KERNEL names: its number in `repro ls` (from 1), its id, or a kernel name or glob; a name
    that several records share names the one the program itself launched, when only one is."""
    if ref.isdigit() and 1 <= int(ref) <= len(records):
        return records[int(ref) - 1]
    for record in records:
        if record.id == ref:
            return record
    matching = [r for r in records if fnmatch.fnmatchcase(r.kernel, ref)]
    if len(matching) > 1:
        chosen = [r for r in matching if not r.autotuning]
        if len(chosen) == 1:
            return chosen[0]
    if len(matching) == 1:
        return matching[0]
    listing = ", ".join(f"{records.index(r) + 1} ({r.id})" for r in matching[:12])
    if matching:
        raise UsageError(
            f"{len(matching)} records match {ref!r}: {listing}",
            fix="name one by its number or id (tritondev repro ls lists them)",
        )
    known = ", ".join(sorted({r.kernel for r in records})[:12]) or "none"
    raise UsageError(
        f"no captured kernel matches {ref!r} (captured: {known})",
        fix="give a kernel name, its number in `tritondev repro ls`, or a record id",
    )


def open_capture(workspace_root: Path, given: Path | None) -> Capture:
    """--capture DIR, else the newest capture of the workspace, read (UsageError when there is none)."""
    return load_capture(choose_capture(captures_root(workspace_root), given))


def open_record(workspace_root: Path, given: Path | None, ref: str) -> tuple[Capture, KernelRecord]:
    """The capture (as open_capture) and the record KERNEL names in it (select)."""
    capture = open_capture(workspace_root, given)
    return capture, select(capture.records, ref)
