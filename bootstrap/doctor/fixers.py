"""The safe fixes `doctor --fix` applies: purge duplicate owners of triton/, write proven ptxas
variables into the workspace env file, remove stale kernel-cache entries. Each reports what it did."""

from __future__ import annotations

from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.process.runner import Runner
from bootstrap.core.target.interpreter import PATH_PYTHON
from bootstrap.doctor.checks.cache import judged_cache
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.model import Applied, AppliedFix, CheckResult, FixStatus
from bootstrap.env.envfile import update_env_file
from bootstrap.kernels.cache import now, plan_prune, remove_entries
from bootstrap.purge import execute_purge
from bootstrap.purge.run import plan_target


def apply_fixes(facts: Facts, results: list[CheckResult], *, dry_run: bool, runner: Runner) -> list[AppliedFix]:
    """Apply each distinct auto-fix once, its commands through `runner`; mark the results it resolves.
    Returns what was done."""
    done: list[AppliedFix] = []
    by_action: dict[str, list[CheckResult]] = {}
    for result in results:
        if result.fix and result.fix.action:
            by_action.setdefault(result.fix.action, []).append(result)
    for action, affected in by_action.items():
        fixer = FIXERS[action]
        try:
            message = fixer(facts, affected, dry_run, runner)
            status = FixStatus.WOULD_APPLY if dry_run else FixStatus.FIXED
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            status = FixStatus.FAILED
        for result in affected:
            result.applied = Applied(status, message)
        done.append(AppliedFix(action, status, message, tuple(r.name for r in affected)))
    return done


def _purge(facts: Facts, affected: list[CheckResult], dry_run: bool, runner: Runner) -> str:
    """What `tritondev purge` does to the target, through the same plan (bootstrap.purge.run.plan_target)."""
    target = facts.target()
    if target.origin == PATH_PYTHON:
        # Found only as a last resort: reading it is fine, uninstalling from it needs the user's word.
        raise RuntimeError(
            f"not uninstalling from {target.executable}, which was only found on PATH: "
            f"run `tritondev doctor --fix --python {target.executable}` to let --fix change it"
        )
    journal = StateFiles(facts.ctx.workspace.state).purge_journal
    _, plan = plan_target(target, runner, journal, cwd=facts.cwd, environ=facts.environ)
    if plan.blocked:
        raise RuntimeError("; ".join(plan.blocked))
    names = ", ".join(f"{o.name} {o.version}" for o in plan.owners) or "nothing"
    leftovers = f" and {len(plan.leftovers)} leftover(s)" if plan.leftovers else ""
    if dry_run:
        return f"would uninstall {names}{leftovers} (pip {' '.join(plan.pip_args())})"
    report = execute_purge(plan, target, runner, journal)
    note = f"; still importable from {report.import_location}" if report.import_location else ""
    return (
        f"uninstalled {names}{leftovers} (journal {journal}; undo: tritondev purge --restore){note};"
        " install the one you want: tritondev setup"
    )


def _env(facts: Facts, affected: list[CheckResult], dry_run: bool, _runner: Runner) -> str:
    variables: dict[str, str] = {}
    for result in affected:
        assert result.fix is not None
        variables.update(result.fix.args.get("variables", {}))
    path = facts.ctx.workspace.env_file
    shown = " ".join(f"{k}={v}" for k, v in variables.items())
    if dry_run:
        return f"would write {shown} to {path}"
    update_env_file(path, dict(variables))
    return f'wrote {shown} to {path}; load it with: eval "$(tritondev env)"'


def _clear_cache(facts: Facts, affected: list[CheckResult], dry_run: bool, _runner: Runner) -> str:
    """`cache prune --stale` on the cache the check looked at: judged again now, by the same rule."""
    report = judged_cache(facts)
    # Deleted the one way `cache prune` deletes: only folders that are Triton's by name and contents
    # (bootstrap/kernels/cache/contents.py), whatever folder TRITON_CACHE_DIR names.
    plan = plan_prune(report.entries, now(), stale=True)
    done = plan if dry_run else remove_entries(report.root, plan)
    left = (
        f"; {len(plan) - len(done)} could not be removed (changed meanwhile, or not writable)"
        if len(done) < len(plan)
        else ""
    )
    verb = "would remove" if dry_run else "removed"
    return f"{verb} {len(done)} stale entries ({sum(r.entry.size for r in done) // 1024} KiB) from {report.root}{left}"


FIXERS = {"purge": _purge, "env": _env, "clear-cache": _clear_cache}
