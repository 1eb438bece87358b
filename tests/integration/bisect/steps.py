"""Waiting for a running bisect to reach a step: for the tests that interrupt it there."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def wait_for_step(proc: subprocess.Popen[str], folder: Path, pattern: str, timeout: float = 600) -> None:
    """Wait until a file matching `pattern` exists under `folder` (that step started), then a second more."""
    deadline = time.monotonic() + timeout
    while not list(folder.glob(pattern)):
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(1.0)
