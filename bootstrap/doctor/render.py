"""The doctor's report: one line per check with a mark, the fix inline, a closing summary; or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bootstrap import __version__
from bootstrap.doctor.engine import Report
from bootstrap.doctor.model import CheckSpec, Status
from bootstrap.doctor.registry import GROUPS

SCHEMA_VERSION = 1

# Glyphs stay when colour is off (NO_COLOR, not a terminal); colour only adds emphasis.
MARKS: dict[Status, tuple[str, str]] = {
    Status.OK: ("✓", "green"),
    Status.WARN: ("!", "yellow"),
    Status.ERROR: ("✗", "red"),
    Status.SKIPPED: ("·", "dim"),
}


def render_text(report: Report, *, verbose: bool, strict: bool, header: str) -> list[str]:
    """Rich-markup lines of the human report."""
    from rich.markup import escape

    lines = [f"[bold]{escape(header)}[/bold]"]
    width = max((len(r.name) for r in report.results), default=10)
    group = None
    for result in report.results:
        if result.group != group:
            group = result.group
            members = [r for r in report.results if r.group == group]
            worst = _worst([r.status for r in members])
            mark, colour = MARKS[worst]
            lines.append(f"\n[{colour}]{mark}[/{colour}] [bold]{escape(GROUPS[group])}[/bold]")
        mark, colour = MARKS[result.status]
        timing = f" [dim]({result.duration_ms} ms)[/dim]" if verbose else ""
        name = result.name.ljust(width)
        summary_style = "dim" if result.status is Status.SKIPPED else ""
        summary = (
            f"[{summary_style}]{escape(result.summary)}[/{summary_style}]" if summary_style else escape(result.summary)
        )
        lines.append(f"  [{colour}]{mark}[/{colour}] {escape(name)}  {summary}{timing}")
        indent = " " * (width + 6)
        if result.fix and result.status in (Status.WARN, Status.ERROR):
            lines.append(f"{indent}[bold]fix:[/bold] {escape(result.fix.shown)}")
        elif result.fix and verbose:
            lines.append(f"{indent}[dim]to enable: {escape(result.fix.shown)}[/dim]")
        if result.applied:
            lines.append(f"{indent}[cyan]--fix {escape(str(result.applied))}[/cyan]")
        if verbose:
            lines.extend(f"{indent}[dim]{escape(d)}[/dim]" for d in result.details)
    lines.append("")
    lines.append(summary_line(report, strict))
    return lines


def _worst(statuses: list[Status]) -> Status:
    for status in (Status.ERROR, Status.WARN, Status.OK):
        if status in statuses:
            return status
    return Status.SKIPPED


def summary_line(report: Report, strict: bool) -> str:
    counts = report.counts()
    warnings, errors = counts[Status.WARN], counts[Status.ERROR]
    parts = [
        f"[green]{counts[Status.OK]} ok[/green]",
        f"[yellow]{warnings} warning{'s' if warnings != 1 else ''}[/yellow]",
        f"[red]{errors} error{'s' if errors != 1 else ''}[/red]",
        f"[dim]{counts[Status.SKIPPED]} skipped[/dim]",
    ]
    problems = report.open_problems(strict)
    fixed = sum(1 for r in report.results if r.fixed)
    if not problems and fixed:
        verdict = f"[bold green]Fixed {fixed} problem(s); no others.[/bold green]"
    elif not problems:
        verdict = "[bold green]No problems found.[/bold green]" if not warnings else "[bold]No errors.[/bold]"
    else:
        groups = len({r.group for r in problems})
        verdict = f"[bold red]Doctor found {len(problems)} problem(s) in {groups} group(s).[/bold red]"
    return f"{verdict} {', '.join(parts)} in {report.seconds:.1f} s"


def report_json(
    report: Report, *, strict: bool, workspace: Path, target_reason: str, arch: int | None, dry_run: bool
) -> dict[str, Any]:
    """The one JSON document of `doctor --json`: what it looked at (target_reason: why that interpreter),
    the summary, each check and each fix."""
    target = report.target
    return {
        "schema_version": SCHEMA_VERSION,
        "tritondev_version": __version__,
        "workspace": str(workspace),
        "target": {**target.to_json(), "reason": target_reason} if target is not None else None,
        "arch": arch,
        "dry_run": dry_run,
        "summary": {
            **{status.value: n for status, n in report.counts().items()},
            "total": len(report.results),
            "strict": strict,
            "exit_code": int(report.exit_code(strict)),
            "seconds": round(report.seconds, 3),
        },
        "checks": [r.to_json() for r in report.results],
        "fixes": [fix.to_json() for fix in report.fixes],
    }


def list_checks_json(specs: list[CheckSpec]) -> dict[str, Any]:
    return {"checks": [{"name": s.name, "group": s.group, "title": s.title} for s in specs]}
