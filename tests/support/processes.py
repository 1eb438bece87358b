"""Whether a process a test saw killed is gone: the tests of tritondev's kills ask it of pids they read."""

from __future__ import annotations

import os
import time
from pathlib import Path


def running(pid: int) -> bool:
    """Whether `pid` runs: it exists and is not a zombie (a zombie has ended; only its parent has yet to
    reap it) nor being reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:  # reaped between the two looks
        return False
    return state not in ("Z", "X")


def outlives_a_kill(pid: int, grace: float = 5.0) -> bool:
    """Whether `pid` still runs `grace` seconds on. A SIGKILL is sent at once but acted on when the kernel
    next runs the process: on a busy machine a killed grandchild can still show as running for a moment
    after the thread that waited on its parent went on. The processes these tests kill would otherwise
    run for a minute."""
    deadline = time.monotonic() + grace
    while running(pid):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.02)
    return False
