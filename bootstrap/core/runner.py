"""The one module that starts subprocesses.

Every external command goes through `Runner.run`, which
- echoes the command (secrets redacted) before it runs,
- honours --dry-run: commands that change the machine are recorded and shown, not run; probes that
  only read (`probe=True`) still run so that the plan is accurate,
- writes output to a per-step log file in the workspace (streamed line by line for long steps;
  core.step_logs),
- never uses a shell: argv lists only,
- runs git with inherited GIT_* variables stripped, dangerous transports disabled and no optional
  locks (a reading git command never rewrites .git/index),
- raises CommandFailed (command, exit status, log path, last lines) or ToolMissing.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TextIO

from bootstrap.core.command_record import PlannedCommand, Result
from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.step_logs import log_path as step_log_path
from bootstrap.core.step_logs import note_exit_status, open_log, write_log

__all__ = ["GIT_ALLOWED_PROTOCOLS", "INSTALL_HINTS", "TAIL_LINES", "PlannedCommand", "Result", "Runner",
           "git_environment"]

TAIL_LINES = 25

# Transports git may use. `ext::` (runs arbitrary commands) and friends are absent on purpose.
GIT_ALLOWED_PROTOCOLS = "file:git:http:https:ssh"

# What to install when a tool is missing (Debian/Ubuntu names; the message says so).
INSTALL_HINTS: dict[str, str] = {
    "git": "apt-get install git",
    "cmake": "apt-get install cmake  (or: pip install 'cmake>=3.20')",
    "ninja": "apt-get install ninja-build  (or: pip install ninja)",
    "clang": "apt-get install clang",
    "clang++": "apt-get install clang",
    "ld.lld": "apt-get install lld",
    "ccache": "apt-get install ccache",
    "podman": "apt-get install podman",
    "docker": "install Docker Engine or podman",
    "buildah": "apt-get install buildah",
    "redis-server": "apt-get install redis-server",
}


Echo = Callable[[str], None]


def _default_echo(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    """`base` without inherited GIT_* variables, plus the safety settings used for every git call."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env["GIT_ALLOW_PROTOCOL"] = GIT_ALLOWED_PROTOCOLS
    env["GIT_TERMINAL_PROMPT"] = "0"  # never hang on a password prompt
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    # No optional locks: a reading git command (status in doctor, in a dry run) never rewrites a
    # checkout's .git/index, nor collides with the user's own git running there.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def _is_git(argv: Sequence[str]) -> bool:
    return os.path.basename(argv[0]) == "git"


@dataclass
class Runner:
    log_dir: Path | None = None
    dry_run: bool = False
    verbose: bool = False
    echo: Echo = _default_echo
    quiet: bool = False  # suppress command echo (e.g. --json where stderr should stay calm)
    history: list[PlannedCommand] = field(default_factory=list)
    # Variables set (value) or removed (None) for every command of this runner, under each call's own
    # `env` (verify: a private Triton cache, no tool-path variables).
    environment: Mapping[str, str | None] = field(default_factory=dict)
    _opened_logs: set[Path] = field(default_factory=set)
    # Independent probes may run in threads (doctor); the log bookkeeping is shared state.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- public API -------------------------------------------------------------------------
    def run(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        step: str,
        cwd: Path | str | None = None,
        env: Mapping[str, str | None] | None = None,
        probe: bool = False,
        check: bool = True,
        timeout: float | None = None,
        on_line: Callable[[str], None] | None = None,
        stream: bool = False,
        input_text: str | None = None,
        fix: str | None = None,
    ) -> Result:
        """Run `argv`.

        probe: the command only reads; it runs under --dry-run too and is echoed only with -v.
        stream: merge stdout/stderr and hand each line to `on_line` as it arrives (long steps).
        env: variables set (value) or removed (None) on top of the inherited environment.
        """
        planned = self._record(argv, step=step, cwd=cwd, env=env, probe=probe)
        args = planned.argv
        if self.dry_run and not probe:
            return self._dry_run(planned)

        if not self.quiet and (self.verbose or not probe):
            self.echo(f"$ {planned.render()}")

        exe = self._resolve(args[0], fix)
        full_env = self._environment(args, env)
        log_path = step_log_path(self.log_dir, step)
        started = time.monotonic()
        if stream:
            result = self._run_streaming(args, exe, cwd, full_env, log_path, timeout, on_line, fix)
        else:
            result = self._run_captured(args, exe, cwd, full_env, log_path, timeout, input_text, fix)
        result.seconds = time.monotonic() - started
        if check and result.returncode != 0:
            tail = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip().splitlines()
            raise CommandFailed(args, result.returncode, log_path, tail[-TAIL_LINES:], fix=fix)
        return result

    def without_logs(self) -> Runner:
        """The same runner (echo, dry-run, history) writing no log files: for probes that run before
        the workspace may be created."""
        return dataclasses.replace(self, log_dir=None)

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
        ignores SIGINT while it runs and returns its status (128+N when a signal N ended it).
        """
        import signal

        planned = self._record(argv, step=step, cwd=cwd, env=env, probe=False)
        args = planned.argv
        if self.dry_run:
            return self._dry_run(planned)
        if self.verbose and not self.quiet:
            self.echo(f"$ {planned.render()}")
        exe = self._resolve(args[0], None, (env or {}).get("PATH"))
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                [exe, *args[1:]],
                cwd=cwd,
                env=self._environment(args, env),
                stdout=subprocess.PIPE if on_stdout else None,
                stderr=subprocess.PIPE if on_stderr else None,
            )
        except OSError as exc:
            raise ToolMissing(f"cannot run {args[0]}: {exc.strerror}") from None
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            _hand_over_lines({proc.stdout: on_stdout, proc.stderr: on_stderr})
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
        if not self.quiet:
            self.echo(f"[dry-run] {planned.render()}")
        return Result(planned.argv, 0, "", "", None, dry_run=True)

    def _resolve(self, program: str, fix: str | None, path: str | None = None) -> str:
        """The program's file; `path`: the PATH the command runs with, where the caller changes it."""
        if os.sep in program:
            if os.path.isfile(program) and os.access(program, os.X_OK):
                return program
            raise ToolMissing(f"{program} does not exist or is not executable", fix=fix)
        found = shutil.which(program, path=path)
        if found is None:
            hint = fix or INSTALL_HINTS.get(program)
            raise ToolMissing(
                f"required tool '{program}' is not on PATH",
                fix=f"install it: {hint}" if hint else f"install {program}, or add the folder that holds it to PATH",
            )
        return found

    def _environment(self, args: tuple[str, ...], env: Mapping[str, str | None] | None) -> dict[str, str]:
        base = dict(os.environ)
        if _is_git(args):
            base = git_environment(base)
        for key, value in [*self.environment.items(), *(env or {}).items()]:
            if value is None:
                base.pop(key, None)
            else:
                base[key] = value
        return base

    def _open_log(self, log_path: Path | None, args: tuple[str, ...], cwd: object) -> TextIO | None:
        if log_path is None:
            return None
        # The first command of a step in this run starts the log afresh; later ones append.
        with self._lock:
            fresh = log_path not in self._opened_logs
            self._opened_logs.add(log_path)
        return open_log(log_path, args, cwd, fresh=fresh)

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
    ) -> Result:
        log = self._open_log(log_path, args, cwd)
        try:
            return self._captured(args, exe, cwd, env, log, log_path, timeout, input_text, fix)
        finally:
            if log is not None:
                log.close()

    def _captured(
        self,
        args: tuple[str, ...],
        exe: str,
        cwd: Path | str | None,
        env: dict[str, str],
        log: TextIO | None,
        log_path: Path | None,
        timeout: float | None,
        input_text: str | None,
        fix: str | None,
    ) -> Result:
        try:
            proc = subprocess.run(
                [exe, *args[1:]],
                cwd=cwd,
                env=env,
                input=input_text,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            write_log(log, out + f"\n# timed out after {timeout}s\n")
            raise CommandFailed(args, None, log_path, out.splitlines()[-TAIL_LINES:], fix=fix, timed_out=True) from None
        except OSError as exc:
            write_log(log, f"# could not start: {exc}\n")
            raise ToolMissing(f"cannot run {args[0]}: {exc.strerror}", fix=fix) from None
        write_log(log, proc.stdout + proc.stderr + f"# exit status {proc.returncode}\n")
        return Result(args, proc.returncode, proc.stdout, proc.stderr, log_path)

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
        try:
            proc = subprocess.Popen(
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
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            write_log(log, "# interrupted\n")
            raise
        finally:
            if log is not None:
                log.close()
        note_exit_status(log_path, returncode)
        return Result(args, returncode, "\n".join(tail), "", log_path)


def _hand_over_lines(pipes: Mapping[IO[bytes] | None, Callable[[str], None] | None]) -> None:
    """Read every pipe that has a callback until it ends, handing each line over as it completes
    (line endings kept, undecodable bytes as surrogate escapes; a last line without an end as is)."""
    import selectors

    with selectors.DefaultSelector() as selector:
        pending: dict[int, bytes] = {}
        for pipe, callback in pipes.items():
            if pipe is not None and callback is not None:
                selector.register(pipe, selectors.EVENT_READ, callback)
                pending[pipe.fileno()] = b""
        while selector.get_map():
            for key, _ in selector.select():
                fd, callback = key.fd, key.data
                chunk = os.read(fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    if pending[fd]:
                        callback(pending[fd].decode("utf-8", "surrogateescape"))
                    continue
                *lines, pending[fd] = (pending[fd] + chunk).split(b"\n")
                for line in lines:
                    callback(line.decode("utf-8", "surrogateescape") + "\n")
