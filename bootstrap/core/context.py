"""What every command gets: resolved settings, the workspace, a runner, and output mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bootstrap.core.interpreter import TargetPython, choose_interpreter, inspect_interpreter
from bootstrap.core.runner import Runner
from bootstrap.core.settings import Settings, load_settings
from bootstrap.core.workspace import Workspace


@dataclass
class Invocation:
    """Output mode of the running command; read by the error handler in cli.main."""

    json: bool = False
    workspace: Path | None = None


CURRENT = Invocation()


@dataclass
class AppContext:
    settings: Settings
    workspace: Workspace
    runner: Runner
    json: bool = False
    dry_run: bool = False
    verbose: bool = False
    _target: TargetPython | None = field(default=None, repr=False)

    def target_python(self) -> TargetPython:
        """The target environment, inspected once per command."""
        if self._target is None:
            executable, origin = choose_interpreter(self.settings.python, self.workspace.venv)
            self._target = inspect_interpreter(executable, origin, self.runner)
        return self._target


def make_context(
    options: dict[str, Any] | None = None,
    *,
    json: bool = False,
    dry_run: bool = False,
    verbose: bool = False,
    logs: bool = True,
) -> AppContext:
    """Resolve settings from defaults, file, environment and `options` (only those the user gave).

    logs: give the runner the workspace's log folder. Read-only commands pass False so that they
    never create a workspace just by running.
    """
    CURRENT.json = json
    settings = load_settings(options or {})
    workspace = Workspace(settings.workspace)
    CURRENT.workspace = workspace.root
    from bootstrap.core import ui

    log_dir = workspace.logs if logs else None
    runner = Runner(log_dir=log_dir, dry_run=dry_run, verbose=verbose, echo=ui.echo_command)
    return AppContext(settings, workspace, runner, json=json, dry_run=dry_run, verbose=verbose)
