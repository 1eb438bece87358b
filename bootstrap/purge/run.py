"""`tritondev purge` and `purge --restore` as one call each (run_purge, run_restore), the purge setup
runs of the other Triton distributions before it installs its own (purge_others), and the one plan all
purges start from (plan_target), `doctor --fix` included."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core import ui
from bootstrap.core.context import AppContext
from bootstrap.core.errors import TritondevError, UsageError
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.process.runner import Runner
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.purge import execute_purge, plan_purge, preflight, scan_environment
from bootstrap.purge.actions import PurgeReport
from bootstrap.purge.journal import recorded_package_files
from bootstrap.purge.pipbridge import PIP_ENV
from bootstrap.purge.plan import PurgePlan
from bootstrap.purge.restore import (
    PurgeRun,
    RestoreReport,
    execute_restore,
    installed_versions,
    last_purge,
    plan_restore,
    restore_failed,
)
from bootstrap.purge.scan import TritonScan


@dataclass(frozen=True)
class PurgeRequest:
    system: bool = False  # a system Python (not a virtualenv or conda env) may be changed


@dataclass(frozen=True)
class PurgeResult:
    target: TargetPython
    scan: TritonScan
    plan: PurgePlan
    report: PurgeReport | None  # None: nothing to remove, or --dry-run
    dry_run: bool

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target.to_json(),
            "dry_run": self.dry_run,
            "scan": self.scan.to_json(),
            "plan": self.plan.to_json(),
            "result": self.report.to_json() if self.report else None,
        }


@dataclass(frozen=True)
class RestoreRequest:
    system: bool = False


@dataclass(frozen=True)
class RestoreResult:
    journal: Path
    run: PurgeRun | None  # None: no purge recorded, nothing to restore
    report: RestoreReport | None
    dry_run: bool
    failure: TritondevError | None = None  # raised once the outcome is shown

    def to_json(self) -> dict[str, object]:
        if self.run is None or self.report is None:
            return {"journal": str(self.journal), "run_id": None, "restored": [], "skipped": [], "failed": []}
        return {"journal": str(self.journal), "dry_run": self.dry_run, **self.report.to_json()}


def refuse_system(target: TargetPython, system: bool) -> None:
    if not target.is_venv and not system:
        raise UsageError(
            f"{target.executable} is a system Python (not a virtualenv or conda env); purge refuses to change it",
            fix="point --python at a virtualenv, or pass --system if you really mean the system Python",
        )


def plan_target(
    target: TargetPython,
    runner: Runner,
    journal: Path,
    *,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[TritonScan, PurgePlan]:
    """What provides triton/ in the target, and the purge of it: the one scan and plan of every purge
    (`tritondev purge`, setup's purge of other distributions, `doctor --fix`).

    The triton/ files that earlier purges of this environment saved in `journal` count as proof too:
    they are the only record of what a distribution installed once pip deleted its RECORD (a stash an
    interrupted uninstall left). cwd / environ: where the user works and their environment (for shadows
    and the import check); default the current ones."""
    recorded = recorded_package_files(journal, target.site_packages)
    found = scan_environment(target, runner, cwd=cwd, environ=environ, recorded_files=recorded)
    return found, plan_purge(found)


def run_purge(ctx: AppContext, request: PurgeRequest) -> PurgeResult:
    """Scan the target for what provides triton/, plan, and (not under --dry-run) remove it under the
    workspace lock, journaled; its logs start only there, so a refused purge creates no workspace."""
    target = ctx.target_python()
    refuse_system(target, request.system)
    journal = StateFiles(ctx.workspace.state).purge_journal
    with ui.working(f"looking for what provides triton/ in {target.prefix}", json=ctx.json):
        found, plan = plan_target(target, ctx.runner, journal)
        if not plan.empty:
            preflight(plan, target, ctx.runner)  # reads only: the same refusals with --dry-run
    report = None
    if not plan.empty and not ctx.dry_run:
        with ctx.locked() as logged:
            report = execute_purge(plan, target, logged, journal)
    return PurgeResult(target, found, plan, report, ctx.dry_run)


def run_restore(ctx: AppContext, request: RestoreRequest) -> RestoreResult:
    """Reinstall what the last purge removed, into the interpreter it removed it from (the journal says
    which; a --python that names another is refused)."""
    journal_path = StateFiles(ctx.workspace.state).purge_journal
    run = last_purge(journal_path)  # checked field by field: the journal is outside input
    if run is None:
        return RestoreResult(journal_path, None, None, ctx.dry_run)
    if ctx.settings.python is not None:
        target = ctx.target_python()
        if target.executable.absolute() != run.executable.absolute():
            raise UsageError(
                f"the last purge was of {run.executable}, not {target.executable}",
                fix=f"run `tritondev purge --restore --python {run.executable}` (or without --python)",
            )
    else:
        ctx.use_interpreter(run.executable, "purge journal")
        target = ctx.target_python()
    refuse_system(target, request.system)
    steps = plan_restore(run.removed, installed_versions(target))
    with ctx.locked() as runner:  # logs begin under the lock
        report = execute_restore(run, steps, target, runner, journal_path)
    return RestoreResult(journal_path, run, report, ctx.dry_run, restore_failed(report))


def purge_others(
    target: TargetPython, runner: Runner, *, workspace: Path, triton_src: Path, setup_dir: Path, journal: Path
) -> bool:
    """Remove every other triton from the target (never our own editable install from this checkout).

    True when something was removed (or would be, with a dry-run runner: then only the pip command
    is shown).
    """
    _, plan = plan_target(target, runner, journal, cwd=workspace)
    mine, src = setup_dir.resolve(), triton_src.resolve()

    def ours(path: str | Path | None) -> bool:
        return path is not None and Path(path).resolve().is_relative_to(src)

    # Our own editable install from this checkout is kept; a different one (another checkout) goes.
    foreign = tuple(
        o for o in plan.owners if not (o.editable and o.editable_path and Path(o.editable_path).resolve() == mine)
    )
    leftovers = tuple(p for p in plan.leftovers if not ours(p))
    if not foreign and not leftovers:
        return False
    plan = dataclasses.replace(plan, owners=foreign, leftovers=leftovers)
    if runner.dry_run:
        if plan.owners:
            runner.run(
                [target.executable, "-m", "pip", *plan.pip_args()],
                step="purge-uninstall",
                env=PIP_ENV,
                cwd=target.prefix,
            )
        return True
    execute_purge(plan, target, runner, journal)  # its checks (preflight) run first, under the environment's lock
    return True
