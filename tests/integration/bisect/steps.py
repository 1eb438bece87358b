"""Waiting for a running bisect to reach a step: for the tests that interrupt it there."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

# File system times come from a coarser clock than time.time(): a folder made just after the journal's
# `started` may carry a time a little before it. The logs of an earlier bisect are seconds older.
CLOCK_SLACK = 0.5


def _started(journal: Path) -> float | None:
    """When the running bisect started, from its journal (written before it clears the earlier logs)."""
    try:
        return float(json.loads(journal.read_text())["started"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not written yet (or being replaced)


def _made_since(path: Path, moment: float) -> bool:
    try:
        return path.stat().st_ctime >= moment
    except FileNotFoundError:  # an earlier bisect's, removed as this one clears them
        return False


def wait_for_step(proc: subprocess.Popen[str], folder: Path, pattern: str, timeout: float = 1800) -> None:
    """Wait until this bisect's step matching `pattern` exists under `folder` (that step started), then a
    second more. A step folder an earlier bisect left (the same name for the same commit) does not count:
    only one made since the running bisect's journal says it started. The timeout guards against a hang."""
    journal = folder.parents[1] / "state" / "bisect.json"
    deadline = time.monotonic() + timeout
    while True:
        started = _started(journal)
        if started is not None and any(_made_since(p, started - CLOCK_SLACK) for p in folder.glob(pattern)):
            break
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.monotonic() < deadline, f"no step {pattern} under {folder} after {timeout} s"
        time.sleep(0.2)
    time.sleep(1.0)
