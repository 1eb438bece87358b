"""Human output and JSON documents of `tritondev repro capture|ls|show|make`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bootstrap.core import ui
from bootstrap.core.context import AppContext
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
    return {"number": index, "id": record.id, "kernel": record.kernel, "status": record.status,
            "autotuning": record.autotuning, "launches": record.launches, "mode": record.mode,
            "grid": list(record.grid) if record.grid else None, "config": config_text(record),
            "args": [arg_text(a) for a in record.args], "target": target_label(record),
            "origin": record.origin.get("kind"), "io_saved": record.io_saved,
            "io_bytes": sum(s.size for s in record.io.values() if s.inputs),
            "io_skipped": [k for k, s in sorted(record.io.items()) if s.skipped],
            "error": (record.error or {}).get("type")}


def listing_json(capture: Capture) -> dict[str, Any]:
    return {"capture": str(capture.folder), "command": capture.info.get("command"),
            "returncode": capture.info.get("returncode"),
            "kernels": [record_row(i, r) for i, r in enumerate(capture.records, 1)],
            "unreadable": [{"id": i, "why": w} for i, w in capture.unreadable], "hook_errors": capture.hook_errors}


def print_listing(capture: Capture, root: Path) -> None:
    info = capture.info
    started = info.get("started")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if isinstance(started, (int, float)) else "?"
    command = " ".join(map(str, info.get("command") or ["?"]))
    ui.out().print(ui.cell(f"capture {capture.folder} ({when}): {command} -> exit {info.get('returncode')}"))
    if not capture.records:
        ui.info("no kernel was captured")
    for index, record in enumerate(capture.records, 1):
        ui.out().print(ui.cell(f"{index:>3}  {record.kernel}  {_status(record)}  x{record.launches}  "
                               f"{launch_summary(record)}  io: {_io_text(record)}"))
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
    folder = capture.folder / "kernels" / record.id
    line, why = compile_line(record, folder)
    return {**record_row(capture.records.index(record) + 1, record), "folder": str(folder),
            "launch": record.to_launch(), "origin": record.origin, "versions": record.versions,
            "spec_problem": record.spec_problem, "source_problems": list(record.source_problems),
            "module_file": str(folder / "module.py") if record.has_module else None,
            "compile_command": line, "compile_command_missing": why}


def print_record(capture: Capture, record: KernelRecord) -> None:
    data = record_json(capture, record)
    out = ui.out()
    title = f"{record.kernel}  ({record.id}, {_status(record)}, {record.launches} launch(es), {record.mode})"
    out.print(ui.cell(title))
    rows = [("folder", data["folder"]), ("origin", f"{record.origin.get('file')}:{record.origin.get('line')} "
                                                   f"({record.origin.get('kind')})"),
            ("versions", ", ".join(f"{k} {v}" for k, v in record.versions.items())),
            ("launch", launch_summary(record)), ("target", target_label(record) or "-")]
    if record.spec:
        rows += [("signature", ", ".join(f"{k}: {v}" for k, v in record.spec.signature.items())),
                 ("constexprs", ", ".join(f"{k}={v}" for k, v in record.spec.constexprs.items()) or "-"),
                 ("attrs", ", ".join(f"{k}: {v}" for k, v in record.spec.attrs.items()) or "-"),
                 ("options", ", ".join(f"{k}={v}" for k, v in record.spec.options.items()) or "-")]
    elif record.spec_problem:
        rows.append(("specialization", f"unknown: {record.spec_problem}"))
    for index, storage in sorted(record.io.items()):
        rows.append((f"storage {index}", f"{human_size(storage.size)}" + (", changed by the launch" if storage.changed
                     else "") + (f", not kept: {storage.skipped}" if storage.skipped else "")))
    if record.error:
        rows.append(("error", f"{record.error.get('type')}: {str(record.error.get('message', '')).strip()[-400:]}"))
        if "failed_stage" in record.error:
            rows.append(("stages", f"{' -> '.join(record.error.get('stages_done', [])) or 'none'}, failed at "
                                   f"{record.error['failed_stage']}"))
    rows += [("compile", data["compile_command"] or f"- ({data['compile_command_missing']})")]
    rows += [("kernel.py", p) for p in record.source_problems]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out.print(ui.cell(f"  {key.ljust(width)}  {value}"))


def capture_json(report: CaptureReport) -> dict[str, Any]:
    capture = report.capture
    document: dict[str, Any] = {"capture": str(report.folder), "command": list(report.request.command),
                                "returncode": report.returncode, "dry_run": capture is None,
                                "save_io": report.request.save_io, "kernel": report.request.kernel}
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
        ui.warn(f"nothing was captured into {report.folder}: the command launched no Triton kernel"
                + (f" named {report.request.kernel}" if report.request.kernel else "")
                + ", or its Python ignored PYTHONPATH (-I, -E) or site (-S)")
    else:
        kernels = sorted({r.kernel for r in capture.records})
        ui.info(f"captured {len(launched)} launch(es) and {len(failed)} failed compile(s) of {len(kernels)} "
                f"kernel(s) into {report.folder}: {', '.join(kernels[:8])}{' ...' if len(kernels) > 8 else ''}")
        ui.info("next: tritondev repro ls; tritondev repro make KERNEL --check")
    _problems(capture)


def make_json(ctx: AppContext, report: MakeReport) -> dict[str, Any]:
    line, why = compile_line(report.record, report.folder)
    return {"kernel": report.record.kernel, "id": report.record.id, "folder": str(report.folder),
            "files": report.files, "dry_run": ctx.dry_run, "compile_command": line, "compile_command_missing": why,
            "dump_command": f"tritondev run --dump-ir -- python {report.folder / 'repro.py'}",
            "run_command": f"python {report.folder / 'repro.py'}",
            "check": report.verdict.to_json() if report.verdict else None}


def print_make(ctx: AppContext, report: MakeReport) -> None:
    data = make_json(ctx, report)
    verb = "would write" if ctx.dry_run else "wrote"
    ui.info(f"{verb} {report.folder}: {', '.join(report.files[:6])}{' ...' if len(report.files) > 6 else ''}")
    ui.info(f"run:     {data['run_command']}")
    if data["compile_command"]:
        ui.info(f"compile: {data['compile_command']}")
    ui.info(f"dump IR: {data['dump_command']}")
    if report.verdict is not None:
        for note in report.verdict.notes:
            ui.note(note)
        ui.out().print(ui.cell(report.verdict.summary))
