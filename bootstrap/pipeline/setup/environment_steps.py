"""The target environment's steps run: the workspace venv created, every other Triton distribution purged
from the target, Triton's build requirements installed into it.

The purge's scan decides whether its step had anything to do, and a removal makes verify run (rule 3 of
bootstrap.pipeline.setup.execute).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.io import writes
from bootstrap.core.io.state_files import StateFiles

if TYPE_CHECKING:
    from bootstrap.pipeline.setup.plan import PlannedStep
    from bootstrap.pipeline.setup.step_run import StepRun


def run_venv(run: StepRun, step: PlannedStep) -> str | None:
    marker = StateFiles(run.workspace.state).venv_marker
    if not run.dry_run:
        writes.replace_text(marker, "")  # a creation cut short is finished with --clear next time
    # python -m venv puts pip into the venv and prints nothing meanwhile (about 10 s): a spinner says so.
    with ui.working(
        f"creating the venv {step.commands[0].argv[-1]} (python -m venv installs pip into it)", json=run.json
    ):
        run.runner.run(step.commands[0].argv, step="venv", fix="install the venv module: apt-get install python3-venv")
    if not run.dry_run:
        marker.unlink(missing_ok=True)
    return None


def run_purge(run: StepRun, step: PlannedStep) -> str | None:
    target = run.facts.target.python
    if target is None:
        return "the environment does not exist yet"
    # Imported when the step runs: purge is the heaviest thing setup imports (metadata parsing, pip's
    # records), and a setup with nothing to purge, or one that stops at bad input, never needs it.
    from bootstrap.purge.run import purge_others

    ws = run.workspace
    removed = purge_others(
        target,
        run.runner,
        workspace=ws.root,
        triton_src=run.facts.triton.path,
        setup_dir=run.facts.setup_dir,
        journal=StateFiles(ws.state).purge_journal,
    )
    if not removed:
        return "no other triton installed"
    # Removing another distribution can take files that ours needs: verify again.
    run.forced["verify"] = "another triton was removed"
    return None


def run_requirements(run: StepRun, step: PlannedStep) -> str | None:
    command = step.commands[0]
    run.runner.run(
        command.argv,
        step=command.step,
        env=command.runner_env(),
        fix="check that the package index is reachable (pip's own output is in the log)",
    )
    return None
