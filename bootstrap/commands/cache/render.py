"""What `tritondev cache` shows: plain aligned columns, one entry's fields and artifacts, what was removed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import ChosenTarget
    from bootstrap.kernels.cache import CacheReport, Entry
    from bootstrap.kernels.cache.actions import ArtifactRead, CacheRemoval


@dataclass(frozen=True)
class Listing(Outcome):
    """`cache ls`: every entry, stale ones flagged."""

    report: CacheReport
    target: ChosenTarget

    def to_json(self) -> dict[str, object]:
        from bootstrap.kernels.cache import now

        return {**self.report.to_json(now()), "target_python": self.target.to_json()}

    def render(self) -> None:
        print_listing(self.report)


@dataclass(frozen=True)
class EntryShown(Outcome):
    """`cache show ENTRY`: its fields and artifacts; with --json its metadata too."""

    entry: Entry

    def to_json(self) -> dict[str, object]:
        from bootstrap.kernels.cache import now

        return {**self.entry.to_json(now()), "metadata": self.entry.metadata}

    def render(self) -> None:
        print_entry(self.entry)


@dataclass(frozen=True)
class ArtifactShown(Outcome):
    """`cache show ENTRY ARTIFACT`: the file as it is (with --json, text artifacts only)."""

    read: ArtifactRead

    def to_json(self) -> dict[str, object]:
        return self.read.to_json()

    def render(self) -> None:
        from bootstrap.core import ui

        ui.emit_bytes(self.read.content)


@dataclass(frozen=True)
class Removed(Outcome):
    """`cache clear` and `cache prune`: each entry removed (or that would be), and what was left."""

    removal: CacheRemoval

    def to_json(self) -> dict[str, object]:
        return self.removal.to_json()

    def render(self) -> None:
        from bootstrap.core import ui
        from bootstrap.kernels.cache import human_size

        removal, dry_run = self.removal, self.removal.dry_run
        verb = "would remove" if dry_run else "removed"
        for r in removal.done:
            ui.info(f"{verb} {r.entry.key[:12]}  {r.entry.name or '-'}  {human_size(r.entry.size)}  ({r.reason})")
        for r in removal.failed:
            ui.warn(f"could not remove {r.entry.path} (permissions, or in use); it was left as it was")
        ui.info(
            f"{'Would remove' if dry_run else 'Removed'} {len(removal.done)} entries ({human_size(removal.freed)}) "
            f"from {removal.root}; {removal.kept} kept"
        )


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
    fields += e.launch_fields()
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
