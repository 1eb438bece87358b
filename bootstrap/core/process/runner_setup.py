"""What a runner is set up with and what it keeps, none of which starts a process.

The setup: where step logs go, whether the run is dry, how loud it is, how a command line is echoed,
and the variables every command gets. What it keeps: the history of `PlannedCommand`s (dry run or
not) and which step logs this run already started. A runner is not changed once made: `quiet()`,
`logging_to(folder)`, `with_variables(...)`, `recording()` and `rehearsal()` derive another one, which
shares the history of commands unless it says otherwise. bootstrap.core.process.runner adds the entry
points that start the commands.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, TypeVar

from bootstrap.core.process.command_record import PlannedCommand, Result
from bootstrap.core.process.step_logs import open_log

Echo = Callable[[str], None]
# The runner a derived runner is made from, so that a Runner derives a Runner.
_Derived = TypeVar("_Derived", bound="RunnerSetup")


def _default_echo(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class RunnerSetup:
    log_dir: Path | None = None
    dry_run: bool = False
    verbose: bool = False
    echo: Echo = _default_echo
    silent: bool = False  # no command echo (e.g. --json where stderr should stay calm)
    history: list[PlannedCommand] = field(default_factory=list)
    # Variables set (value) or removed (None) for every command of this runner, under each call's own
    # `env` (verify: a private Triton cache, no tool-path variables).
    environment: Mapping[str, str | None] = field(default_factory=dict)
    _opened_logs: set[Path] = field(default_factory=set)
    # Independent probes may run in threads (doctor); the log bookkeeping is shared state.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- derived runners: the original is left as it is -------------------------------------------
    def quiet(self: _Derived, on: bool = True) -> _Derived:
        """This runner without the echo of its commands (on=False: with it); history and logs shared."""
        return dataclasses.replace(self, silent=on)

    def logging_to(self: _Derived, folder: Path | None) -> _Derived:
        """This runner writing its step logs into `folder` (None: no log files, for probes that run
        before the workspace may exist); each step's first command there starts its log afresh."""
        return dataclasses.replace(self, log_dir=folder, _opened_logs=set())

    def with_variables(self: _Derived, environment: Mapping[str, str | None]) -> _Derived:
        """This runner with more variables set (value) or removed (None) for every command."""
        return dataclasses.replace(self, environment={**self.environment, **environment})

    def recording(self: _Derived) -> _Derived:
        """This runner with a history of its own: what one part of a command ran, apart."""
        return dataclasses.replace(self, history=[])

    def rehearsal(self: _Derived) -> _Derived:
        """A dry, silent runner with a history of its own: a plan simulated, its commands listed."""
        return dataclasses.replace(self, dry_run=True, silent=True, history=[])

    # -- what a runner keeps of each command ----------------------------------------------------
    def _record(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        cwd: Path | str | None,
        env: Mapping[str, str | None] | None,
        probe: bool,
    ) -> PlannedCommand:
        """The command as it will run, added to the history (dry run or not)."""
        args = tuple(os.fspath(a) for a in argv)
        if not args:
            raise ValueError("empty command")
        overrides = tuple((k, v) for k, v in (env or {}).items() if v is not None)
        planned = PlannedCommand(args, os.fspath(cwd) if cwd is not None else None, overrides, step, probe)
        with self._lock:
            self.history.append(planned)
        return planned

    def _dry_run(self, planned: PlannedCommand) -> Result:
        if not self.silent:
            self.echo(f"[dry-run] {planned.render()}")
        return Result(planned.argv, 0, "", "", None, dry_run=True)

    def _open_log(self, log_path: Path | None, args: tuple[str, ...], cwd: object) -> TextIO | None:
        if log_path is None:
            return None
        # The first command of a step in this run starts the log afresh; later ones append.
        with self._lock:
            fresh = log_path not in self._opened_logs
            self._opened_logs.add(log_path)
        return open_log(log_path, args, cwd, fresh=fresh)
