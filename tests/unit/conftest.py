"""The fast tier: tests that start no process.

Every test here runs with process creation disabled, so a unit test that (directly or through the
code it calls) would start git, cmake, pip or an interpreter fails at once instead of quietly
becoming slow. Tests that need real processes live in tests/integration/.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from typing import NoReturn

import pytest


class UnitTestStartedAProcess(AssertionError):
    """A unit test tried to start a process; it belongs in tests/integration/."""


def _refuse(*args: object, **kwargs: object) -> NoReturn:
    raise UnitTestStartedAProcess(
        f"unit tests start no process (tried: {args[:1]!r}); move the test to tests/integration/"
    )


@pytest.fixture(autouse=True)
def _fresh_run() -> None:
    """Each test starts as a run of the program does (cli.main): nothing of another test's run is left."""
    from bootstrap.core import run_state

    run_state.start()


@pytest.fixture(autouse=True)
def _no_processes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "execv", "execve", "execvp", "execvpe"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _refuse)
    yield
