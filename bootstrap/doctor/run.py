"""Run the selected checks on facts whose probes may already have begun, then the safe fixes."""

from __future__ import annotations

import time

from bootstrap.core.context import AppContext
from bootstrap.core.errors import TritondevError
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.doctor.catalog import load_checks, select
from bootstrap.doctor.engine import Report, run_checks
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.fixers import apply_fixes
from bootstrap.doctor.options import DoctorOptions, start_facts


def run_doctor(ctx: AppContext, options: DoctorOptions, facts: Facts | None = None) -> Report:
    """Run the selected checks; with options.fix apply the safe fixes under the workspace lock.
    `facts`: from start_facts, whose probes may be running already; made here when not given."""
    facts = facts or start_facts(ctx, options)
    started = time.monotonic()
    try:
        specs = select(options.checks, load_checks())
        if options.checks:
            # The facts learn which checks run: the probes those ask for start at once, and one probe
            # can answer several of them (Facts.start, Facts.triton_probe).
            facts.start(frozenset(spec.name for spec in specs))
        results = run_checks(specs, facts)
        report = Report(results, 0.0)
        if options.fix and any(r.fix and r.fix.action for r in results):
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
