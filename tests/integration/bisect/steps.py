"""Waiting for a running bisect to reach a step: for the tests that interrupt it there."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def wait_for_step(
    proc: subprocess.Popen[str], workspace: Path, pattern: str, since: float, timeout: float = 1800
) -> None:
    """Wait until this run has recorded its bisect (state/bisect.json) and started the step whose logs
    match `pattern` under logs/bisect/, written after `since` (the time before the run
    started): an earlier bisect's step folders stay until the new one has recorded itself and cleared
    them, so a name alone may be the last run's. What an interruption then finds does not depend on how
    fast a loaded machine got there."""
    deadline = time.monotonic() + timeout
    journal, logs = workspace / "state" / "bisect.json", workspace / "logs" / "bisect"
    while not (journal.is_file() and any(_changed_since(p, since) for p in logs.glob(pattern))):
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.monotonic() < deadline, f"no step {pattern} under {logs} after {timeout} s (a hang guard)"
        time.sleep(0.2)


def _changed_since(path: Path, since: float) -> bool:
    """Written after `since`: the path, or a file in it (a resumed bisect writes into a step folder of the
    same name again when it tests the same commit first)."""
    try:
        return any(p.stat().st_mtime >= since for p in (path, *(path.rglob("*") if path.is_dir() else ())))
    except FileNotFoundError:  # cleared meanwhile
        return False
