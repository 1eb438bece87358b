"""Purging the other Triton distributions of the target environment before setup installs its own."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bootstrap.core.interpreter import TargetPython
from bootstrap.core.runner import Runner
from bootstrap.purge import execute_purge, plan_purge, preflight, scan_environment
from bootstrap.purge.pipbridge import PIP_ENV


def purge_others(
    target: TargetPython, runner: Runner, *, workspace: Path, triton_src: Path, setup_dir: Path, journal: Path
) -> bool:
    """Remove every other triton from the target (never our own editable install from this checkout).

    True when something was removed (or would be, with a dry-run runner: then only the pip command
    is shown).
    """

    plan = plan_purge(scan_environment(target, runner, cwd=workspace))
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
            runner.run([target.executable, "-m", "pip", *plan.pip_args()], step="purge-uninstall", env=PIP_ENV,
                       cwd=target.prefix)
        return True
    preflight(plan, target, runner)
    execute_purge(plan, target, runner, journal)
    return True
