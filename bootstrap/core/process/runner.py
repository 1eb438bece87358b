"""The one module that starts subprocesses.

A command goes through one of three entry points, named for what it is:
- `Runner.run`: a command that changes the machine; under --dry-run it is recorded and shown, not run,
- `Runner.capture`: a command that only reads; it runs under --dry-run too (the plan must be accurate)
  and is echoed only with -v,
- `Runner.stream`: a long step whose merged output is handed over line by line as it arrives,
and `Runner.run_attached` runs a user's own command on this terminal. Each of them
- echoes the command (secrets redacted) before it runs,
- writes output to a per-step log file in the workspace (streamed line by line for long steps;
  core.step_logs),
- never uses a shell: argv lists only,
- runs every git command without inherited GIT_* variables, dangerous transports, optional locks (a
  reading one never rewrites .git/index), hooks, fsmonitor or filter drivers (command_env, here only),
- raises CommandFailed (command, exit status, log path, last lines) or ToolMissing.

A runner is not changed once made: `quiet()`, `logging_to(folder)`, `with_variables(...)`, `recording()`
and `rehearsal()` derive another one, which shares the history of commands unless it says otherwise
(runner_setup: what a runner is set up with and keeps, none of which starts a process).
"""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from bootstrap.core import interrupt
from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.process import command_env, live_children
from bootstrap.core.process.command_env import resolve_program
from bootstrap.core.process.command_record import PlannedCommand, Result
from bootstrap.core.process.git_filter_drivers import filter_drivers_where
from bootstrap.core.process.output_lines import hand_over_lines
from bootstrap.core.process.runner_setup import RunnerSetup
from bootstrap.core.process.step_logs import log_path as step_log_path
from bootstrap.core.process.step_logs import note_exit_status, write_log

__all__ = ["TAIL_LINES", "PlannedCommand", "Result", "Runner"]

TAIL_LINES = 25


class Runner(RunnerSetup):
    """A runner (its setup and history: runner_setup) with the entry points that start its commands."""

    # -- entry points ------------------------------------------------------------------------
    def run(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        cwd: Path | str | None = None,
        env: Mapping[str, str | None] | None = None,
        check: bool = True,
        timeout: float | None = None,
        input_text: str | None = None,
        fix: str | None = None,
        whole: bool = False,
    ) -> Result:
        """Run a command that changes the machine: echoed, recorded, only shown under --dry-run; its
        output captured and logged. env: variables set (value) or removed (None) on top of the
        inherited environment. whole: the command must not be cut halfway (a checkout writing files);
        it runs in a session of its own, which a terminal's Ctrl-C does not reach, and a Ctrl-C to
        tritondev is raised when it ended (interrupt.held_until_done; a second one stops it at once)."""
        return self._start(
            argv,
            step=step,
            cwd=cwd,
            env=env,
            reads_only=False,
            check=check,
            timeout=timeout,
            input_text=input_text,
            fix=fix,
            whole=whole,
        )

    def capture(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        cwd: Path | str | None = None,
        env: Mapping[str, str | None] | None = None,
        check: bool = True,
        timeout: float | None = None,
        input_text: str | None = None,
        fix: str | None = None,
    ) -> Result:
        """Run a command that only reads: it runs under --dry-run too and is echoed only with -v."""
        return self._start(
            argv,
            step=step,
            cwd=cwd,
            env=env,
            reads_only=True,
            check=check,
            timeout=timeout,
            input_text=input_text,
            fix=fix,
        )

    def stream(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        on_line: Callable[[str], None] | None = None,
        cwd: Path | str | None = None,
        env: Mapping[str, str | None] | None = None,
        check: bool = True,
        timeout: float | None = None,
        fix: str | None = None,
        reads_only: bool = False,
    ) -> Result:
        """Run a long step: stdout and stderr merged, each line to `on_line` and to the step's log as it
        arrives. reads_only: the command only reads (it runs under --dry-run too)."""
        return self._start(
            argv,
            step=step,
            cwd=cwd,
            env=env,
            reads_only=reads_only,
            check=check,
            timeout=timeout,
            on_line=on_line,
            streamed=True,
            fix=fix,
        )

    def _start(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        cwd: Path | str | None,
        env: Mapping[str, str | None] | None,
        reads_only: bool,
        check: bool,
        timeout: float | None,
        input_text: str | None = None,
        on_line: Callable[[str], None] | None = None,
        streamed: bool = False,
        fix: str | None = None,
        whole: bool = False,
    ) -> Result:
        planned = self._record(argv, step=step, cwd=cwd, env=env, probe=reads_only)
        args = planned.argv
        if self.dry_run and not reads_only:
            return self._dry_run(planned)
        if not self.silent and (self.verbose or not reads_only):
            self.echo(f"$ {planned.render()}")

        exe = resolve_program(args[0], fix)
        full_env = self._environment(args, env, cwd)
        log_path = step_log_path(self.log_dir, step)
        started = time.monotonic()
        if streamed:
            result = self._run_streaming(args, exe, cwd, full_env, log_path, timeout, on_line, fix)
        else:
            # A whole command's log is complete before a Ctrl-C held during it is raised.
            with interrupt.held_until_done(f"`{planned.render()}`") if whole else contextlib.nullcontext():
                result = self._run_captured(args, exe, cwd, full_env, log_path, timeout, input_text, fix, whole=whole)
        result.seconds = time.monotonic() - started
        if command_env.is_git(args) and result.returncode != 0:
            command_env.refuse_unsafe_repository(result.stdout + result.stderr)
        if check and result.returncode != 0:
            tail = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip().splitlines()
            raise CommandFailed(args, result.returncode, log_path, tail[-TAIL_LINES:], fix=fix)
        return result

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def run_attached(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        env: Mapping[str, str | None] | None = None,
        cwd: Path | str | None = None,
        on_stdout: Callable[[str], None] | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> Result:
        """Run a user's command attached to this terminal and return its exit status (never raises on it).

        stdin is inherited. A stream with a callback is piped and handed over line by line (line
        endings kept, undecodable bytes as surrogate escapes so they can be written back unchanged);
        a stream without one goes straight to the terminal. Ctrl-C is left to the command: tritondev
        ignores SIGINT while it runs and returns its status (128+N when a signal N ended it)."""
        import signal

        planned = self._record(argv, step=step, cwd=cwd, env=env, probe=False)
        args = planned.argv
        if self.dry_run:
            return self._dry_run(planned)
        if self.verbose and not self.silent:
            self.echo(f"$ {planned.render()}")
        exe = resolve_program(args[0], None, (env or {}).get("PATH"))
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                [exe, *args[1:]],
                cwd=cwd,
                env=self._environment(args, env, cwd, users_command=True),
                stdout=subprocess.PIPE if on_stdout else None,
                stderr=subprocess.PIPE if on_stderr else None,
            )
        except OSError as exc:
            raise ToolMissing(f"cannot run {args[0]}: {exc.strerror}") from None
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            hand_over_lines({proc.stdout: on_stdout, proc.stderr: on_stderr})
            returncode = proc.wait()
        finally:
            if proc.poll() is None:  # an exception in a callback: do not leave the command behind
                proc.kill()
                proc.wait()
            signal.signal(signal.SIGINT, previous)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        if returncode < 0:
            returncode = 128 - returncode
        return Result(args, returncode, "", "", None, seconds=time.monotonic() - started)

    # -- internals --------------------------------------------------------------------------
    def _environment(
        self,
        args: tuple[str, ...],
        env: Mapping[str, str | None] | None,
        cwd: Path | str | None,
        *,
        users_command: bool = False,
    ) -> dict[str, str]:
        return command_env.environment(
            args,
            os.environ,
            [self.environment, env or {}],
            harden=not users_command,
            drivers=lambda base: filter_drivers_where(args, cwd, base, _list_git_config),
        )

    def _run_captured(
        self,
        args: tuple[str, ...],
        exe: str,
        cwd: Path | str | None,
        env: dict[str, str],
        log_path: Path | None,
        timeout: float | None,
        input_text: str | None,
        fix: str | None,
        *,
        whole: bool = False,
    ) -> Result:
        with contextlib.ExitStack() as stack:
            log = self._open_log(log_path, args, cwd)
            if log is not None:
                stack.callback(log.close)
            # A session (and so a process group) of its own: a whole command's, which a terminal's Ctrl-C does not
            # reach, and a background thread's, so that a kill ends its children too. Neither reads the terminal.
            own_group = whole or live_children.in_background()
            quiet_stdin = subprocess.DEVNULL if own_group else None
            try:
                child = subprocess.Popen(
                    [exe, *args[1:]],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.PIPE if input_text is not None else quiet_stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    errors="replace",
                    # A session, not only a group: Popen's process_group needs Python 3.11 (tritondev runs on 3.10).
                    start_new_session=own_group,
                )
            except OSError as exc:
                write_log(log, f"# could not start: {exc}\n")
                raise ToolMissing(f"cannot run {args[0]}: {exc.strerror}", fix=fix) from None
            # Tracked while it runs: a command that ends stops it, even where a background thread waits on it.
            with live_children.tracked(child, group=own_group):
                try:
                    stdout, stderr = child.communicate(input_text, timeout=timeout)
                except subprocess.TimeoutExpired:
                    live_children.kill(child, group=own_group)
                    out, _ = child.communicate()
                    write_log(log, out + f"\n# timed out after {timeout}s\n")
                    tail = out.splitlines()[-TAIL_LINES:]
                    raise CommandFailed(args, None, log_path, tail, fix=fix, timed_out=True) from None
            write_log(log, stdout + stderr + f"# exit status {child.returncode}\n")
            return Result(args, child.returncode, stdout, stderr, log_path)

    def _run_streaming(
        self,
        args: tuple[str, ...],
        exe: str,
        cwd: Path | str | None,
        env: dict[str, str],
        log_path: Path | None,
        timeout: float | None,
        on_line: Callable[[str], None] | None,
        fix: str | None,
    ) -> Result:
        log = self._open_log(log_path, args, cwd)
        tail: collections.deque[str] = collections.deque(maxlen=400)
        proc = _start_merged(args, exe, cwd, env, log, fix)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                tail.append(line.rstrip("\n"))
                write_log(log, line)
                if on_line is not None:
                    on_line(line.rstrip("\n"))
                if deadline is not None and time.monotonic() > deadline:
                    proc.kill()
                    proc.wait()
                    raise CommandFailed(args, None, log_path, list(tail)[-TAIL_LINES:], fix=fix, timed_out=True)
            returncode = proc.wait()
        except BaseException:
            # Ctrl-C reaches the child too (same process group); make sure it is gone before we go.
            _stop(proc)
            write_log(log, "# interrupted\n")
            raise
        finally:
            for handle in (proc.stdout, log):
                if handle is not None:
                    handle.close()
        note_exit_status(log_path, returncode)
        return Result(args, returncode, "\n".join(tail), "", log_path)


def _start_merged(
    args: tuple[str, ...], exe: str, cwd: Path | str | None, env: dict[str, str], log: TextIO | None, fix: str | None
) -> subprocess.Popen[str]:
    """A long step started with stdout and stderr merged into one pipe of text lines."""
    try:
        return subprocess.Popen(
            [exe, *args[1:]],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            bufsize=1,
        )
    except OSError as exc:
        write_log(log, f"# could not start: {exc}\n")
        raise ToolMissing(f"cannot run {args[0]}: {exc.strerror}", fix=fix) from None


def _stop(proc: subprocess.Popen[str]) -> None:
    """Terminate the child if it still runs; kill it if it has not ended 10 s later."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _list_git_config(argv: Sequence[str], cwd: Path | str | None, env: dict[str, str]) -> tuple[int, str]:
    """A git command that lists config (git_filter_drivers): its exit status and stdout, never logged."""
    listed = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, errors="surrogateescape", check=False
    )
    return listed.returncode, listed.stdout
