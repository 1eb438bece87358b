"""How every test, benchmark and GPU figure starts the real `tritondev` CLI: one command line.

Tests start the CLI as a process, as users do. They run it as `python -m bootstrap` with the test
environment's own Python rather than through the console script or the launcher, so that the
checkout under test is what runs (the console script of an editable install names another
checkout's interpreter when two clones share one venv). The launcher has tests of its own
(tests/integration/core/test_launcher.py).
"""

from __future__ import annotations

import sys


def tritondev_argv(*args: str) -> list[str]:
    """The command line that runs `tritondev ARGS...` from this checkout."""
    return [sys.executable, "-m", "bootstrap", *args]
