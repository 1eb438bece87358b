"""The captured commands that a command's background threads are running now.

A command that ends (an error, a Ctrl-C) while a thread it started in the background still waits on a
process the runner started, or is about to start one (setup's probe of the target, started ahead while
git reads the pins), stops that process: it must not outlive tritondev, nor hold up its exit, since
Python waits for the thread before it exits. Such a thread runs its work through
`in_background_of_this_command`; the runner keeps each captured child of such a thread here while it
runs; `bootstrap.cli.main` calls `stop_all` as the command ends, and a child such a thread starts after
that is killed as soon as it starts.

Only background threads are bound to the command: a child of the main thread ends with its own call (the
runner kills it on any exception), and whoever calls the runner after a command ended in this process (a
program that embeds tritondev, a test) runs its children as usual. Nothing here starts a process.

A child the runner starts in a process group of its own (a background thread's, and a command that must
run whole) is killed with its group: a grandchild that keeps the output pipe open (a wrapper script that
does not `exec`) would otherwise hold the waiting thread until it ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, Protocol, TypeVar

from bootstrap.core import run_state

P = ParamSpec("P")
R = TypeVar("R")


class Child(Protocol):
    """What this module does with a child the runner started (a subprocess.Popen)."""

    @property
    def pid(self) -> int: ...
    def poll(self) -> int | None: ...
    def kill(self) -> None: ...
    def wait(self) -> int: ...


class _LiveChildren:
    """This run's part: its background threads (by ident, while they run bound work), the children they
    run now, and whether the command has ended."""

    def __init__(self) -> None:
        self.background: set[int] = set()
        self.running: dict[Child, bool] = {}  # each child: whether it leads a process group of its own
        self.ended = False
        self.lock = threading.Lock()


def in_background_of_this_command(work: Callable[P, R]) -> Callable[P, R]:
    """`work`, to run in a thread this command starts: the children it starts are stopped when the
    command ends, and once it ended, one it starts is killed as it starts."""
    live = run_state.part(_LiveChildren)

    def bound(*args: P.args, **kwargs: P.kwargs) -> R:
        me = threading.get_ident()
        with live.lock:
            live.background.add(me)
        try:
            return work(*args, **kwargs)
        finally:
            with live.lock:
                live.background.discard(me)

    return bound


def in_background() -> bool:
    """Whether this thread runs work bound to a command (the runner starts its children in a group of their own)."""
    live = run_state.part(_LiveChildren)
    with live.lock:
        return threading.get_ident() in live.background


def kill(proc: Child, *, group: bool) -> None:
    """SIGKILL to `proc`, which still runs (not reaped: its pid is still its own), and to every process of
    its group where it leads one of its own."""
    if group:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    else:
        proc.kill()


@contextmanager
def tracked(proc: Child, *, group: bool = False) -> Iterator[Child]:
    """The block that waits on `proc` (`group`: it leads a process group of its own): it is killed (and
    reaped) if it still runs when the block ends, by an exception or not. In a background thread of a
    command, it is known here while it runs, and killed at once where the command already ended."""
    live = run_state.part(_LiveChildren)
    with live.lock:
        background = threading.get_ident() in live.background
        if background:
            live.running[proc] = group
            if live.ended:
                kill(proc, group=group)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            kill(proc, group=group)
            proc.wait()
        if background:
            with live.lock:
                live.running.pop(proc, None)


def stop_all() -> int:
    """The command ended: kill every child its background threads still run (each thread sees its child
    end, killed by SIGKILL, and goes on) and any they start from now on. The number killed now."""
    live = run_state.part(_LiveChildren)
    with live.lock:
        live.ended = True
        running = [(proc, group) for proc, group in live.running.items() if proc.poll() is None]
        for proc, group in running:
            kill(proc, group=group)
    return len(running)
