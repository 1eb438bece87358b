"""`tritondev doctor`: named, independent checks of what breaks Triton development.

Public API:
    run_doctor(ctx, DoctorOptions(...)) -> Report   run checks (and --fix) and return the results
    registry.load_checks()                          every check, by name, in report order
    arch.parse_arch("sm_121a") -> 121               the --arch parser
    versions.jax_ffi_support(version)               JAX floors (pure)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.context import AppContext
from bootstrap.core.errors import TritondevError
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.doctor.facts import Facts

if TYPE_CHECKING:
    from bootstrap.doctor.engine import Report


@dataclass
class DoctorOptions:
    arch: int | None = None
    checks: list[str] = field(default_factory=list)
    deep: bool = False
    fix: bool = False
    cwd: Path | None = None
    environ: dict[str, str] | None = None


def run_doctor(ctx: AppContext, options: DoctorOptions) -> Report:
    """Run the selected checks; with options.fix apply the safe fixes under the workspace lock."""
    facts = Facts(ctx, arch=options.arch, deep=options.deep, cwd=options.cwd, environ=options.environ)
    started = time.monotonic()
    try:
        # The facts learn which checks run: the probes those ask for start at once, and one probe can
        # answer several of them (Facts.start, Facts.triton_probe). With every check asked for, they
        # start before the checks' modules are imported (a fifth of a second), not after.
        if not options.checks:
            facts.start(None)
        from bootstrap.doctor.catalog import load_checks, select
        from bootstrap.doctor.engine import Report, run_checks

        specs = select(options.checks, load_checks())
        if options.checks:
            facts.start(frozenset(spec.name for spec in specs))
        results = run_checks(specs, facts)
        report = Report(results, 0.0)
        if options.fix and any(r.fix and r.fix.action for r in results):
            from bootstrap.doctor.fixers import apply_fixes

            # Fixes change things: under the lock, with their logs kept (neither under --dry-run).
            with ctx.locked() as runner:
                report.fixes = apply_fixes(facts, results, dry_run=ctx.dry_run, runner=runner)
    finally:
        facts.close()
    report.seconds = time.monotonic() - started
    report.target = _target_for_report(ctx)
    return report


def _target_for_report(ctx: AppContext) -> TargetPython | None:
    """The target the report is about, probed now if no selected check needed it (--check workspace.dirty);
    None when there is none or it is not usable (python.interpreter, when run, says why)."""
    target = ctx.probed_target()
    if target is not None:
        return target
    try:
        return ctx.target_python_if_present()
    except TritondevError:
        return None
