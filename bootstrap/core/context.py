"""What every command gets: resolved settings, the workspace, a runner, and output mode."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bootstrap.core import fixlines, run_state, ui
from bootstrap.core.fixlines import repeat_options
from bootstrap.core.io import writes
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings import load_settings
from bootstrap.core.settings.settings_table import BY_NAME, Settings, SettingSource, SourceKind
from bootstrap.core.target.interpreter import (
    PATH_PYTHON,
    Target,
    TargetPython,
    choose_interpreter,
    path_python,
    why_chosen,
)


@dataclass
class Invocation:
    """Output mode of the running command; read by the error handler in cli.main (a part of the run:
    bootstrap.core.run_state)."""

    json: bool = False
    # --json on the command line, known before the options are parsed: an error of the option parser,
    # or a crash before the command starts, still answers with one JSON document.
    json_asked: bool = False
    workspace: Path | None = None
    writes_logs: bool = False  # the command keeps logs in the workspace (a reading command does not)

    @property
    def wants_json(self) -> bool:
        return self.json or self.json_asked


def invocation() -> Invocation:
    """The running command's output mode."""
    return run_state.part(Invocation)


# How a command holds the workspace lock: shared, it only reads the build folder (test runs: two at
# once, never one during a build); exclusive, it changes the workspace (a build, a purge, a fix).
LockKind = Literal["shared", "exclusive"]


@dataclass(frozen=True)
class LockDeclaration:
    """The workspace lock a command declared (`@command(lock=...)`), taken through AppContext.locked."""

    kind: LockKind
    holder: str  # the command, as the lock file names it to whoever finds the lock taken


@dataclass(frozen=True)
class ChosenTarget:
    """The interpreter a command chose, how, and why in words (`target_python` of a --json document)."""

    executable: Path
    origin: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"executable": str(self.executable), "origin": self.origin, "reason": self.reason}


@dataclass
class AppContext:
    settings: Settings
    workspace: Workspace
    runner: Runner
    json: bool = False
    dry_run: bool = False
    verbose: bool = False
    # A command that only reads the target (doctor, verify, compile, cache, env, run): with nothing
    # given and no workspace venv, it falls back to the first python3 on PATH (core.interpreter).
    reads_target: bool = False
    lock: LockDeclaration | None = None
    _target: Target | None = field(default=None, repr=False)

    # The target interpreter: chosen in one place (core.interpreter.choose_interpreter), probed at
    # most once per command (core.interpreter.Target), and shared by every part of the command that asks.
    def target(self) -> Target:
        """The chosen target (not probed until asked)."""
        if self._target is None:
            on_path = path_python() if self.reads_target else None
            executable, origin = choose_interpreter(
                self.settings.python,
                self.workspace.venv,
                python_source=self.settings.source_of("python"),
                path_python=on_path,
            )
            self._target = Target(executable, origin)
            if origin == PATH_PYTHON and not self.json:
                ui.note(f"target Python: {executable} ({why_chosen(PATH_PYTHON, self.workspace.venv)})")
        return self._target

    def target_choice(self) -> tuple[Path, str]:
        """(interpreter, how it was chosen), without running it."""
        target = self.target()
        return target.executable, target.origin

    def command_line(self, words: str) -> str:
        """`tritondev <words>` with the options the user gave that chose this command's target, for a
        line that tells them what to run next (bootstrap.core.fixlines)."""

        return repeat_options(f"tritondev {words}") or ""

    def chosen_target(self) -> ChosenTarget:
        """Which interpreter this command chose and why, for its outcome (never probes)."""
        executable, origin = self.target_choice()
        return ChosenTarget(executable, origin, why_chosen(origin, self.workspace.venv))

    def target_is_missing_venv(self) -> bool:
        """The target is the workspace venv and it does not exist yet (setup creates it)."""
        return self.target().is_missing_venv()

    def target_python(self) -> TargetPython:
        """The target environment, inspected once per command (ConfigError when it is not usable)."""
        return self.target().python(self.runner)

    def target_python_if_present(self) -> TargetPython | None:
        """As target_python, but None when the target is a workspace venv that does not exist yet."""
        return self.target().python_if_present(self.runner)

    def probed_target(self) -> TargetPython | None:
        """The target if this command has already probed it successfully, else None (never probes)."""
        return self._target.probed if self._target is not None else None

    def use_interpreter(self, executable: Path, origin: str) -> None:
        """Point this command at a known interpreter (e.g. the one setup installed into)."""
        self._target = Target(executable, origin)

    @contextmanager
    def locked(self, *, builds: bool = False) -> Iterator[Runner]:
        """Hold the workspace lock the command declared, for the body of the `with`; the runner it gives
        keeps its logs in the workspace from here on (a command that only read so far kept none, so that a
        refused run creates no workspace). builds: what runs turned out to build (a Makefile target that is
        no test), so the lock is taken exclusive whatever was declared. Under --dry-run, which changes
        nothing: no lock, no logs, nothing created."""
        if self.lock is None:
            raise AssertionError("this command declared no workspace lock (@command(lock=...))")
        if self.dry_run:
            yield self.runner
            return
        shared = self.lock.kind == "shared" and not builds
        with self.workspace.lock(self.lock.holder, shared=shared):
            yield self.runner if self.runner.log_dir is not None else self.runner.logging_to(self.workspace.logs)

    @contextmanager
    def changing(self, command: str) -> Iterator[None]:
        """The workspace lock for `setup` and `build`, whose commands take it by name until they declare it
        as every other command does (`locked`); under --dry-run no lock and no workspace created."""
        if self.dry_run:
            yield
            return
        with self.workspace.lock(command):
            yield

    def adopting(self, clone: Path) -> AppContext:
        """This context with `clone` as the --triton-src setting (as if given on the command line)."""
        sources = {**self.settings.sources, "triton_src": SettingSource.of(SourceKind.CLI, "--triton-src")}
        settings = dataclasses.replace(self.settings, triton_src=clone, sources=sources)
        return dataclasses.replace(self, settings=settings)

    def with_runner(self, runner: Runner) -> AppContext:
        """This context with another runner (one derived from its own); the target chosen so far is kept."""
        return dataclasses.replace(self, runner=runner)

    def forget_target(self) -> None:
        """The target changed on disk (setup created the venv): probe it again when asked."""
        self.target().forget()


def make_context(
    options: dict[str, Any] | None = None,
    *,
    json: bool = False,
    dry_run: bool = False,
    verbose: bool = False,
    logs: bool = True,
    reads_target: bool = False,
    quiet: bool = False,
    lock: LockDeclaration | None = None,
) -> AppContext:
    """Resolve settings from defaults, file, environment and `options` (only those the user gave).

    logs: give the runner the workspace's log folder. Read-only commands pass False so that they
    never create a workspace just by running.
    reads_target: the command only reads the target environment (see AppContext.reads_target).
    quiet: the runner does not echo the commands it runs. lock: the workspace lock the command takes.
    """
    running = invocation()
    running.json = json
    settings = load_settings(options or {})

    fixlines.remember_given(
        {
            BY_NAME[name].option: str(getattr(settings, name))
            for name in fixlines.TARGET_SETTINGS
            if settings.source_of(name).kind is SourceKind.CLI
        }
    )
    workspace = Workspace(settings.workspace)
    running.workspace = workspace.root
    running.writes_logs = logs
    writes.anchor(workspace.root)  # below it, tritondev's writes follow no link

    log_dir = workspace.logs if logs else None
    runner = Runner(log_dir=log_dir, dry_run=dry_run, verbose=verbose, echo=ui.echo_command, silent=quiet)
    return AppContext(
        settings, workspace, runner, json=json, dry_run=dry_run, verbose=verbose, reads_target=reads_target, lock=lock
    )
