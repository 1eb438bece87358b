"""A command that ends leaves no process of its own behind and does not wait on one it no longer needs.

setup starts the target's probe in a thread beside its git reads (bootstrap.core.target.interpreter).
When the pins fail first, the command ends while the probe may still run: here the target interpreter
hangs. The probe runs bound to the command (bootstrap.core.process.live_children), so the end of the
command kills it, so the error comes at once, not after the probe's 60 s timeout, and the hung
interpreter does not outlive tritondev.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from bootstrap.core import run_state
from bootstrap.core.errors import CommandFailed
from bootstrap.core.process import live_children
from bootstrap.core.process.runner import Runner
from tests.conftest import run_cli
from tests.support.processes import outlives_a_kill, running

SHA = "0123456789abcdef0123456789abcdef01234567"


def _hanging_interpreter(path: Path, pid_file: Path) -> None:
    path.parent.mkdir(parents=True)
    # The pid file appears whole (a rename) or not at all: the kill can land between any two of these lines.
    path.write_text(f"#!/bin/sh\necho $$ > {pid_file}.part\nmv {pid_file}.part {pid_file}\nexec sleep 60\n")
    path.chmod(0o755)


def test_failed_pins_end_setup_at_once_and_kill_the_probe_still_running(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    workspace, pid_file = tmp_path / "ws", tmp_path / "probe.pid"
    _hanging_interpreter(workspace / "venv" / "bin" / "python", pid_file)
    missing = tmp_path / "no-triton"
    started = time.monotonic()
    proc = run_cli(
        "setup",
        "--workspace",
        str(workspace),
        "--triton-commit",
        SHA,
        "--triton-url",
        str(missing),
        "--json",
        env=clean_env,
        timeout=120,
    )
    seconds = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    assert "is not a git repository" in json.loads(proc.stdout)["message"]
    assert seconds < 30, f"setup waited {seconds:.1f}s for a probe it no longer needed"
    # The probe may not have started its interpreter before the pins failed; if it did, it is gone.
    if pid_file.exists():
        assert not outlives_a_kill(int(pid_file.read_text())), "the target's probe outlived tritondev"


def _sleep_in_background(runner: Runner, outcome: list[BaseException | None]) -> threading.Thread:
    """A thread of the command (bound to it) that waits on a child sleeping for a minute."""

    def wait_on_sleep() -> None:
        try:
            runner.capture([sys.executable, "-c", "import time; time.sleep(60)"], step="hang", timeout=90)
            outcome.append(None)
        except CommandFailed as exc:
            outcome.append(exc)

    thread = threading.Thread(target=live_children.in_background_of_this_command(wait_on_sleep))
    thread.start()
    return thread


def test_a_child_a_background_thread_waits_on_is_killed_when_the_command_ends_and_so_is_one_started_after(
    tmp_path: Path,
) -> None:
    run_state.start()
    runner = Runner(log_dir=tmp_path / "logs", echo=lambda _line: None)
    outcome: list[BaseException | None] = []
    thread = _sleep_in_background(runner, outcome)
    deadline = time.monotonic() + 30
    while not run_state.part(live_children._LiveChildren).running and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    assert live_children.stop_all() == 1
    thread.join(30)
    assert not thread.is_alive() and time.monotonic() - started < 10
    failed = outcome[0]
    assert isinstance(failed, CommandFailed) and failed.returncode == -9
    # A background thread of the ended command that starts a child now: killed as it starts.
    started = time.monotonic()
    late: list[BaseException | None] = []
    _sleep_in_background(runner, late).join(30)
    assert isinstance(late[0], CommandFailed) and late[0].returncode == -9 and time.monotonic() - started < 10


def test_after_a_command_ended_the_caller_runs_its_own_children_as_usual(tmp_path: Path) -> None:
    """A program (or a test) that goes on after tritondev's main returned: its children are its own, in
    the main thread or in a thread of its own, and nothing kills them."""
    run_state.start()
    live_children.stop_all()  # as bootstrap.cli.main does when a command ends
    runner = Runner(log_dir=tmp_path / "logs", echo=lambda _line: None)
    assert runner.capture([sys.executable, "-c", "print('ok')"], step="after").stdout == "ok\n"
    answers: list[str] = []
    thread = threading.Thread(
        target=lambda: answers.append(runner.capture(["sh", "-c", "sleep 0.3; echo fine"], step="mine").stdout)
    )
    thread.start()
    thread.join(30)
    assert answers == ["fine\n"]


@pytest.mark.parametrize("input_text", [None, "given"])
def test_a_captured_child_ends_with_its_block_whatever_ends_it(tmp_path: Path, input_text: str | None) -> None:
    """An exception in the waiting thread (here a timeout) leaves no child running."""
    run_state.start()
    runner = Runner(log_dir=tmp_path / "logs", echo=lambda _line: None)
    with pytest.raises(CommandFailed) as info:
        runner.capture(
            ["/bin/sh", "-c", f"echo $$ > {tmp_path}/pid; exec sleep 60"],
            step="slow",
            timeout=0.5,
            input_text=input_text,
        )
    assert info.value.timed_out
    pid = int((tmp_path / "pid").read_text())
    assert not running(pid)


def test_a_background_child_is_killed_with_its_own_children(tmp_path: Path) -> None:
    """A wrapper script that does not `exec` (a target `python` that is a shell script): its child holds the
    output pipe, so killing the wrapper alone would leave the thread waiting for the sleep to end."""
    run_state.start()
    runner = Runner(log_dir=tmp_path / "logs", echo=lambda _line: None)
    pid_file = tmp_path / "sleep.pid"
    wrapper = f"sleep 60 & echo $! > {pid_file}.part; mv {pid_file}.part {pid_file}; wait $!"
    outcome: list[BaseException | None] = []

    def wait_on_wrapper() -> None:
        try:
            runner.capture(["/bin/sh", "-c", wrapper], step="hang", timeout=90)
            outcome.append(None)
        except CommandFailed as exc:
            outcome.append(exc)

    thread = threading.Thread(target=live_children.in_background_of_this_command(wait_on_wrapper))
    thread.start()
    deadline = time.monotonic() + 30
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    assert live_children.stop_all() == 1
    thread.join(30)
    assert not thread.is_alive() and time.monotonic() - started < 10
    assert isinstance(outcome[0], CommandFailed) and outcome[0].returncode == -9
    assert not outlives_a_kill(int(pid_file.read_text()))
