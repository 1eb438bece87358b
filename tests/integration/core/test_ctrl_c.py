"""Ctrl-C at the two ends of a run, where Python's own handling would take over (bootstrap/core/interrupt.py).

The program runs as it does from the console command (bootstrap.program.run), with a hook that sends
the process SIGINT at the exact moment under test, so the test does not depend on timing:
- while the program imports its modules: the command does not start; exit 130 and one "interrupted";
- while the command's error is being reported: the error's exit code and JSON document stand;
- after the command finished (an atexit hook, which runs before the interpreter resets its signal
  handlers): the outcome stands; no message, no "Exception ignored" traceback, no death by the signal.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

# Sends SIGINT to this process when `typer` is first imported, i.e. in the middle of the program's start-up.
DURING_IMPORTS = """
import importlib.abc, os, signal, sys
class CtrlCOnImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, CtrlCOnImport())
from bootstrap.program import run
run()
"""

# Sends SIGINT to this process at exit, after the command's outcome (and waits for it to be delivered).
AT_EXIT = """
import atexit, os, signal, time
atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.3)))
from bootstrap.program import run
run()
"""


# Sends SIGINT to this process as the command's error is about to be reported.
WHILE_REPORTING = """
import os, signal, time
import bootstrap.cli as cli
report = cli._report_error
def interrupted_report(exc):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.3)
    report(exc)
cli._report_error = interrupted_report
from bootstrap.program import run
run()
"""


def _program(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(REPO)},
    )


def test_ctrl_c_during_start_up_stops_the_command_before_it_starts(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    proc = _program(DURING_IMPORTS, "setup", "--workspace", str(workspace), "--json", cwd=tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("interrupted") == 1 and "fix: run the same command again" in proc.stderr
    assert json.loads(proc.stdout)["error"] == "Interrupted"
    assert not workspace.exists()  # setup did not start


def test_ctrl_c_after_the_outcome_changes_nothing(tmp_path: Path) -> None:
    ok = _program(AT_EXIT, "--version", cwd=tmp_path)
    assert (ok.returncode, ok.stderr) == (0, ""), ok.stderr
    assert ok.stdout.startswith("tritondev ")
    failed = _program(AT_EXIT, "no-such-command", cwd=tmp_path)
    assert failed.returncode == 2 and failed.returncode != -signal.SIGINT
    assert "Exception ignored" not in failed.stderr and "interrupted" not in failed.stderr


def test_ctrl_c_while_an_error_is_reported_keeps_the_error(tmp_path: Path) -> None:
    proc = _program(
        WHILE_REPORTING, "setup", "--workspace", str(tmp_path / "ws"), "--build-type", "Nope", "--json", cwd=tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert json.loads(proc.stdout)["exit_code"] == 2
    assert "interrupted" not in proc.stderr and "Traceback" not in proc.stderr
