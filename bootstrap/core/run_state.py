"""What one run of tritondev keeps while it runs, held in one place that each run starts afresh.

A module whose state belongs to the run (the options given before the command name, the output mode,
the options a fix line repeats, the folders tritondev owns, the secrets learnt from the command line,
whether the JSON document was printed, the spinner on screen) declares a small class for it and asks
for it with `part(Kind)`: the run makes one the first time it is asked. `start()` (cli.main, at the
start of each run) replaces the run whole, so a second run in one process (a test, a program that
embeds tritondev) starts clean, and no module keeps a global of its own to reset or to forget.
"""

from __future__ import annotations

import threading
from typing import TypeVar

T = TypeVar("T")


class Run:
    """The parts of one run, by class; safe to ask from the threads of one command (doctor's checks)."""

    def __init__(self) -> None:
        self._parts: dict[type, object] = {}
        self._lock = threading.Lock()

    def part(self, kind: type[T]) -> T:
        with self._lock:
            found = self._parts.get(kind)
            if found is None:
                found = self._parts[kind] = kind()
        assert isinstance(found, kind)
        return found


# The run in progress: the one module global that changes during a run, replaced whole by start().
_RUN = [Run()]


def current() -> Run:
    return _RUN[0]


def start() -> Run:
    """A new run: every part starts from its class's defaults."""
    _RUN[0] = Run()
    return _RUN[0]


def part(kind: type[T]) -> T:
    """The current run's part of class `kind` (made on first use)."""
    return current().part(kind)
