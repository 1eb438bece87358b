"""Human output and JSON documents of `tritondev repro capture|ls|show|make`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core import ui
from bootstrap.core.outcome import Outcome
from bootstrap.kernels.cache.units import human_size
from bootstrap.repro.capture import CaptureReport
from bootstrap.repro.make import MakeReport
from bootstrap.repro.records import KernelRecord
from bootstrap.repro.render import arg_text, compile_line, config_text, launch_summary, target_label
from bootstrap.repro.store import Capture


def _status(record: KernelRecord) -> str:
    return f"{record.status} (autotuning)" if record.autotuning else record.status


def _io_text(record: KernelRecord) -> str:
    if not record.io_saved:
        return "-"
    kept = sum(s.size for s in record.io.values() if s.inputs)
    skipped = sum(1 for s in record.io.values() if s.skipped)
    return human_size(kept) + (f", {skipped} over the limit" if skipped else "")


def record_row(index: int, record: KernelRecord) -> dict[str, Any]:
    return {
        "number": index,
        "id": record.id,
        "kernel": record.kernel,
        "status": record.status,
        "autotuning": record.autotuning,
        "launches": record.launches,
        "mode": record.mode,
        "grid": list(record.grid) if record.grid else None,
        "config": config_text(record),
        "args": [arg_text(a) for a in record.args],
        "target": target_label(record),
        "origin": record.origin_kind,
        "io_saved": record.io_saved,
        "io_bytes": sum(s.size for s in record.io.values() if s.inputs),
        "io_skipped": [k for k, s in sorted(record.io.items()) if s.skipped],
        "error": record.error_type,
    }


def listing_json(capture: Capture) -> dict[str, Any]:
    command = capture.info.command
    return {
        "capture": str(capture.folder),
        "command": list(command) if command is not None else None,
        "returncode": capture.info.returncode,
        "kernels": [record_row(i, r) for i, r in enumerate(capture.records, 1)],
        "unreadable": [{"id": i, "why": w} for i, w in capture.unreadable],
        "hook_errors": capture.hook_errors,
    }


def print_listing(capture: Capture, root: Path) -> None:
    info = capture.info
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.started)) if info.started is not None else "?"
    ui.out().print(ui.cell(f"capture {capture.folder} ({when}): {info.command_text} -> exit {info.returncode}"))
    if not capture.records:
        ui.info("no kernel was captured")
    for index, record in enumerate(capture.records, 1):
        ui.out().print(
            ui.cell(
                f"{index:>3}  {record.kernel}  {_status(record)}  x{record.launches}  "
                f"{launch_summary(record)}  io: {_io_text(record)}"
            )
        )
    _problems(capture)
    others = [p for p in root.iterdir() if p.is_dir() and p != capture.folder] if root.is_dir() else []
    if others:
        ui.note(f"{len(others)} other capture(s) in {root}: --capture DIR reads one")


def _problems(capture: Capture) -> None:
    for record_id, why in capture.unreadable:
        ui.warn(f"record {record_id} not read: {why}")
    for line in capture.hook_errors:
        ui.warn(f"capture hook: {line}")


def record_json(capture: Capture, record: KernelRecord) -> dict[str, Any]:
    folder = record_folder(capture, record)
    line, why = compile_line(record, folder)
    return {
        **record_row(capture.records.index(record) + 1, record),
        "folder": str(folder),
        "launch": record.to_launch(),
        "origin": record.origin,
        "versions": record.versions,
        "spec_problem": record.spec_problem,
        "source_problems": list(record.source_problems),
        "module_file": str(folder / "module.py") if record.has_module else None,
        "compile_command": line,
        "compile_command_missing": why,
    }


def record_folder(capture: Capture, record: KernelRecord) -> Path:
    return capture.folder / "kernels" / record.id


def print_record(capture: Capture, record: KernelRecord) -> None:
    folder = record_folder(capture, record)
    line, why = compile_line(record, folder)
    out = ui.out()
    title = f"{record.kernel}  ({record.id}, {_status(record)}, {record.launches} launch(es), {record.mode})"
    out.print(ui.cell(title))
    rows = [
        ("folder", str(folder)),
        ("origin", record.origin_place),
        ("versions", ", ".join(f"{k} {v}" for k, v in record.versions.items())),
        ("launch", launch_summary(record)),
        ("target", target_label(record) or "-"),
    ]
    if record.spec:
        rows += [
            ("signature", ", ".join(f"{k}: {v}" for k, v in record.spec.signature.items())),
            ("constexprs", ", ".join(f"{k}={v}" for k, v in record.spec.constexprs.items()) or "-"),
            ("attrs", ", ".join(f"{k}: {v}" for k, v in record.spec.attrs.items()) or "-"),
            ("options", ", ".join(f"{k}={v}" for k, v in record.spec.options.items()) or "-"),
        ]
    elif record.spec_problem:
        rows.append(("specialization", f"unknown: {record.spec_problem}"))
    for index, storage in sorted(record.io.items()):
        rows.append(
            (
                f"storage {index}",
                f"{human_size(storage.size)}"
                + (", changed by the launch" if storage.changed else "")
                + (f", not kept: {storage.skipped}" if storage.skipped else ""),
            )
        )
    if record.error_text is not None:
        rows.append(("error", record.error_text))
        if record.stages_text is not None:
            rows.append(("stages", record.stages_text))
    rows += [("compile", line or f"- ({why})")]
    rows += [("kernel.py", p) for p in record.source_problems]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out.print(ui.cell(f"  {key.ljust(width)}  {value}"))


def capture_json(report: CaptureReport) -> dict[str, Any]:
    capture = report.capture
    document: dict[str, Any] = {
        "capture": str(report.folder),
        "command": list(report.request.command),
        "returncode": report.returncode,
        "dry_run": capture is None,
        "save_io": report.request.save_io,
        "kernel": report.request.kernel,
    }
    if capture is not None:
        document.update(listing_json(capture))
    return document


def print_capture(report: CaptureReport) -> None:
    capture = report.capture
    if capture is None:
        return
    launched = [r for r in capture.records if r.status != "compile-failed"]
    failed = [r for r in capture.records if r.status == "compile-failed"]
    if not capture.records:
        ui.warn(
            f"nothing was captured into {report.folder}: the command launched no Triton kernel"
            + (f" named {report.request.kernel}" if report.request.kernel else "")
            + ", or its Python ignored PYTHONPATH (-I, -E) or site (-S)"
        )
    else:
        kernels = sorted({r.kernel for r in capture.records})
        ui.info(
            f"captured {len(launched)} launch(es) and {len(failed)} failed compile(s) of {len(kernels)} "
            f"kernel(s) into {report.folder}: {', '.join(kernels[:8])}{' ...' if len(kernels) > 8 else ''}"
        )
        ui.info("next: tritondev repro ls; tritondev repro make KERNEL --check")
    _problems(capture)


def make_json(report: MakeReport, dry_run: bool) -> dict[str, Any]:
    line, why = compile_line(report.record, report.folder)
    return {
        "kernel": report.record.kernel,
        "id": report.record.id,
        "folder": str(report.folder),
        "files": report.files,
        "dry_run": dry_run,
        "compile_command": line,
        "compile_command_missing": why,
        "dump_command": _dump_command(report),
        "run_command": _run_command(report),
        "check": report.verdict.to_json() if report.verdict else None,
    }


def _run_command(report: MakeReport) -> str:
    return f"python {report.folder / 'repro.py'}"


def _dump_command(report: MakeReport) -> str:
    return f"tritondev run --dump-ir -- python {report.folder / 'repro.py'}"


def print_make(report: MakeReport, dry_run: bool) -> None:
    line, _ = compile_line(report.record, report.folder)
    verb = "would write" if dry_run else "wrote"
    ui.info(f"{verb} {report.folder}: {', '.join(report.files[:6])}{' ...' if len(report.files) > 6 else ''}")
    ui.info(f"run:     {_run_command(report)}")
    if line:
        ui.info(f"compile: {line}")
    ui.info(f"dump IR: {_dump_command(report)}")
    if report.verdict is not None:
        for note in report.verdict.notes:
            ui.note(note)
        ui.out().print(ui.cell(report.verdict.summary))


@dataclass(frozen=True)
class Captured(Outcome):
    """`repro capture`: what was recorded, and where; the command's exit status passed through."""

    report: CaptureReport

    def to_json(self) -> dict[str, object]:
        return capture_json(self.report)

    def render(self) -> None:
        print_capture(self.report)

    @property
    def exit_code(self) -> int:
        return self.report.returncode


@dataclass(frozen=True)
class CaptureListing(Outcome):
    """`repro ls`: the kernels of a capture."""

    capture: Capture
    root: Path  # where the workspace's captures are (the others are counted)

    def to_json(self) -> dict[str, object]:
        return listing_json(self.capture)

    def render(self) -> None:
        print_listing(self.capture, self.root)


@dataclass(frozen=True)
class RecordShown(Outcome):
    """`repro show`: one captured kernel."""

    capture: Capture
    record: KernelRecord

    def to_json(self) -> dict[str, object]:
        return record_json(self.capture, self.record)

    def render(self) -> None:
        print_record(self.capture, self.record)


@dataclass(frozen=True)
class ReproMade(Outcome):
    """`repro make`: the files written and how to run them; with --check, whether it reproduces (exit 4
    when that could not be told)."""

    report: MakeReport
    dry_run: bool

    def to_json(self) -> dict[str, object]:
        return make_json(self.report, self.dry_run)

    def render(self) -> None:
        print_make(self.report, self.dry_run)

    @property
    def exit_code(self) -> int:
        verdict = self.report.verdict
        return 4 if verdict is not None and verdict.reproduces is None else 0
