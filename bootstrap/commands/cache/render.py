"""Human output of `tritondev cache`: plain aligned columns, one entry's fields and artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bootstrap.kernels.cache import CacheReport, Entry


def binary_hint(name: str, path: Path, nvdisasm: str | None = None) -> str:
    """How to look inside a binary artifact; for a cubin, with an nvdisasm that exists here."""
    if name.endswith(".cubin"):
        if nvdisasm is None:
            return ("disassemble it with nvdisasm (in Triton's wheel and the CUDA toolkit; none found here: "
                    "pass --python with the environment Triton is installed in)")
        return f"disassemble it: {nvdisasm} -c {path}"
    if name.endswith(".hsaco"):
        return f"disassemble it: llvm-objdump -d {path}"
    return f"inspect it: nm -D {path}"


def _columns(rows: list[list[str]], right: set[int]) -> list[str]:
    """Plain aligned columns: never truncated, whatever the terminal width (and easy to grep)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]


def print_listing(report: CacheReport) -> None:
    from rich.markup import escape

    from bootstrap.core import ui
    from bootstrap.kernels.cache import human_age, human_size, now

    console = ui.out()
    if not report.root.is_dir():
        console.print(f"No kernel cache at {escape(str(report.root))} ({escape(report.source)}).")
        return
    moment = now()
    rows = [["ENTRY", "KIND", "NAME", "TARGET", "TRITON", "SIZE", "AGE", "REGS", "SPILLS", "STALE"]]
    for e in report.entries:
        rows.append(
            [
                e.key[:12],
                e.kind,
                e.name or "-",
                e.target or "-",
                e.triton_version or (e.triton_hash[:10] if e.triton_hash else "-"),
                human_size(e.size),
                human_age(e.age(moment)),
                "-" if e.n_regs is None else str(e.n_regs),
                "-" if e.n_spills is None else str(e.n_spills),
                "stale" if e.stale else "",
            ]
        )
    console.print(f"Triton kernel cache {escape(str(report.root))} ({escape(report.source)})")
    for line in _columns(rows, right={5, 6, 7, 8}):
        console.print(escape(line))
    stale = [e for e in report.entries if e.stale]
    console.print(
        f"{len(report.entries)} entries, {human_size(report.total_size)}; {len(stale)} stale"
        + (f"; installed Triton {report.installed_version}" if report.installed_version else "")
        + (f"; GPUs {', '.join(report.local_targets)}" if report.local_targets else "")
    )
    for e in stale:
        console.print(f"  stale {e.key[:12]} {escape(e.name or '-')}: {escape('; '.join(e.stale))}")
    for e in report.entries:
        if e.foreign_reason:
            ui.note(f"not Triton's, never removed: {e.path.name} ({e.foreign_reason})")
    for note in report.notes:
        ui.note(f"note: {note}")
    if stale:
        ui.info("fix: tritondev cache prune --stale")


def print_entry(e: Entry) -> None:
    from rich.markup import escape
    from rich.table import Table

    from bootstrap.core import ui
    from bootstrap.kernels.cache import human_age, human_size, now

    console = ui.out()
    fields = [
        ("entry", e.key),
        ("path", str(e.path)),
        ("kind", e.kind),
        ("name", e.name or "-"),
        ("target", e.target or "-"),
        ("triton", e.triton_version or "-"),
        ("hash", e.triton_hash or "-"),
        ("size", human_size(e.size)),
        ("age", human_age(e.age(now()))),
        ("registers", "-" if e.n_regs is None else str(e.n_regs)),
        ("spills", "-" if e.n_spills is None else str(e.n_spills)),
        ("stack", "-" if e.stack_bytes is None else f"{e.stack_bytes} bytes"),
    ]
    for key in ("num_warps", "num_stages", "num_ctas", "shared"):
        if key in e.metadata:
            fields.append((key, str(e.metadata[key])))
    fields.append(("stale", "; ".join(e.stale) if e.stale else "no"))
    for label, value in fields:
        console.print(f"[bold]{label:>10}[/bold]  {escape(value)}")
    table = Table(title="artifacts", title_justify="left")
    for column in ("file", "stage", "size"):
        table.add_column(column, justify="right" if column == "size" else "left")
    for a in e.artifacts:
        table.add_row(escape(a.name), a.stage, human_size(a.size))
    console.print(table)
    if e.artifacts:
        ui.info(f"print one: tritondev cache show {e.key[:12]} <file or stage>")
