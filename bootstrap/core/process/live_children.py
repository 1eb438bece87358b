"""The captured commands that are running now, in any thread of this run.

A command that ends (an error, a Ctrl-C) while a background thread still waits on a process the runner
started, or is about to start one (the target's probe, started ahead while git reads the pins), stops
that process: it must not outlive tritondev, nor hold up its exit, since Python waits for the thread
before it exits. The runner keeps each captured child here while it runs; `bootstrap.cli.main` calls
`stop_all` as the command ends, and a child started after that is killed as soon as it starts. Nothing
here starts a process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from bootstrap.core import run_state


class Child(Protocol):
    """What this module does with a child the runner started (a subprocess.Popen)."""

    def poll(self) -> int | None: ...
    def kill(self) -> None: ...
    def wait(self) -> int: ...


class _LiveChildren:
    """This run's part: its children running now, and whether the command has ended."""

    def __init__(self) -> None:
        self.running: set[Child] = set()
        self.ended = False
        self.lock = threading.Lock()


@contextmanager
def tracked(proc: Child) -> Iterator[Child]:
    """`proc` is known here while the block runs; it is killed (and reaped) if it still runs when the block
    ends, by an exception or not, and at once where the command already ended."""
    live = run_state.part(_LiveChildren)
    with live.lock:
        live.running.add(proc)
        if live.ended:
            proc.kill()
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        with live.lock:
            live.running.discard(proc)


def stop_all() -> int:
    """The command ended: kill every child still running (the thread that waits on one sees it end, killed
    by SIGKILL, and goes on) and any started from now on. The number killed now."""
    live = run_state.part(_LiveChildren)
    with live.lock:
        live.ended = True
        running = [proc for proc in live.running if proc.poll() is None]
        for proc in running:
            proc.kill()
    return len(running)
