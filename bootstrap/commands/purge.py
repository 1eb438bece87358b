"""`tritondev purge`: remove every distribution that provides `triton/`, journal it, restore on request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.errors import TritondevError
    from bootstrap.core.target.interpreter import TargetPython
    from bootstrap.purge.actions import PurgeReport
    from bootstrap.purge.plan import PurgePlan
    from bootstrap.purge.run import PurgeResult, RestoreResult
    from bootstrap.purge.scan import TritonScan

Restore = Annotated[bool, options.flag("--restore", help="Reinstall what the last purge removed (from its journal).")]
System = Annotated[
    bool, options.flag("--system", help="Allow a system Python (not a virtualenv or conda env) as the target.")
]


# No logs while only reading: a refused purge must not even create the workspace (logs start under the lock).
@options.command("workspace", "python", "dry_run", "json", "verbose", lock="exclusive")
def purge(ctx: AppContext, restore: Restore = False, system: System = False) -> Outcome:
    """Remove every distribution that owns files of the `triton` package (triton, pytorch-triton, pytorch-triton-rocm, triton-xpu, ... found by what they installed), then leftovers in site-packages. torch and all other distributions stay. A journal in <workspace>/state lets --restore reinstall what was removed.

    Exit codes: 0 done or nothing to purge; 2 bad input (not an interpreter, a system Python without --system, read-only site-packages, a distribution without RECORD); 3 no pip in the target; 4 pip failed, or something could not be restored; 6 workspace or environment locked, or a RECORD that lists files that are not Triton's.
    """  # noqa: E501
    from bootstrap.purge.run import PurgeRequest, RestoreRequest, run_purge, run_restore

    if restore:
        return RestoreOutcome(run_restore(ctx, RestoreRequest(system)))
    return PurgeOutcome(run_purge(ctx, PurgeRequest(system)))


def register(app: typer.Typer) -> None:
    app.command("purge")(purge)


@dataclass(frozen=True)
class PurgeOutcome(Outcome):
    """What purge found and removed (or would remove, under --dry-run)."""

    result: PurgeResult

    def to_json(self) -> dict[str, object]:
        return self.result.to_json()

    def render(self) -> None:
        found, plan, report = self.result.scan, self.result.plan, self.result.report
        _render_found(self.result.target, found, plan)
        if plan.empty:
            from bootstrap.core import ui

            where = found.import_location
            state = f"`import triton` resolves to {where}" if where else "`import triton` fails"
            ui.info(f"nothing to purge ({state})")
        elif self.result.dry_run:
            _render_plan(self.result.target, plan)
        else:
            assert report is not None
            _render_removed(report)


@dataclass(frozen=True)
class RestoreOutcome(Outcome):
    """What --restore reinstalled, skipped or could not bring back."""

    result: RestoreResult

    def to_json(self) -> dict[str, object] | None:
        # A restore that failed answers with its error's document, which carries the report.
        return self.result.to_json() if self.result.failure is None else None

    def render(self) -> None:
        from bootstrap.core import ui

        report = self.result.report
        if report is None:
            ui.info(f"nothing to restore: no purge recorded in {self.result.journal}")
            return
        verb = "would reinstall" if self.result.dry_run else "reinstalled"
        for step in report.restored:
            ui.info(f"{verb} {step.name} {step.version}")
        for step in report.skipped:
            ui.info(f"skipped {step.name} {step.version}: {step.skip}")
        for step in report.failed:
            ui.warn(f"could not restore {step.name} {step.version}: {step.cannot}")

    @property
    def failure(self) -> TritondevError | None:
        return self.result.failure


def _render_found(target: TargetPython, found: TritonScan, plan: PurgePlan) -> None:
    from rich.markup import escape

    from bootstrap.core import ui

    console = ui.err()
    console.print(f"target: {escape(str(target.executable))} ({escape(target.origin)})")
    if found.owners:
        console.print("distributions that own files of triton/:")
        for o in found.owners:
            notes = []
            if o.editable:
                notes.append(f"editable: {o.editable_path}")
            if o.placeholder:
                notes.append("PyPI placeholder")
            if o.missing_files:
                notes.append(f"{len(o.missing_files)} recorded files missing")
            if o.record_missing:
                notes.append("no RECORD")
            extra = f" [{'; '.join(notes)}]" if notes else ""
            console.print(f"  {escape(o.name)} {escape(o.version)}: {len(o.files)} files{escape(extra)}")
    if found.overlaps:
        example, names = next(iter(sorted(found.overlaps.items())))
        console.print(
            f"[yellow]{len(found.overlaps)} files are claimed by more than one distribution[/yellow]"
            f" (e.g. {escape(example)}: {escape(', '.join(names))})"
        )
    for proven in found.leftover_proofs:
        console.print(f"leftover: {escape(str(proven.path))} ({escape(proven.proof)})")
    for kept in found.kept:
        ui.warn(f"{kept.path} is kept: {kept.why} (delete it by hand if it is not yours)")
    if plan.unowned_files:
        console.print(f"{len(plan.unowned_files)} files in triton/ belong to no distribution")
    for path in found.shadows:
        ui.warn(f"{path} shadows the installed triton; it is never removed (rename or move it)")


def _render_plan(target: TargetPython, plan: PurgePlan) -> None:
    import shlex

    from bootstrap.core import ui

    ui.info("would remove (dry run, nothing changed):")
    for o in plan.owners:
        ui.info(f"  {o.name} {o.version} ({len(o.files)} files under triton/, {o.dist_info})")
    ui.info(f"  with: {shlex.join([str(target.executable), '-m', 'pip', *plan.pip_args()])}")
    for path in plan.leftovers:
        ui.info(f"  delete {path}")
    if plan.unowned_files:
        ui.info(f"  delete what pip leaves of triton/ ({len(plan.unowned_files)} unowned files)")


def _render_removed(report: PurgeReport) -> None:
    from bootstrap.core import ui

    for entry in report.removed:
        ui.info(f"removed {entry.name} {entry.version}")
    for leftover in report.leftovers_removed:
        ui.info(f"deleted {leftover}")
    for warning in report.warnings:
        ui.warn(warning)
    if report.import_location is None:
        ui.info("`import triton` now fails in this environment; journal: " + str(report.journal))
