"""The benchmark table runner works (it runs the cheapest benchmark; no timing is asserted here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_perf_runner_prints_table() -> None:
    # One round instead of fifteen: the table is what is tested here, not the figures.
    result = subprocess.run(
        [sys.executable, str(REPO / "tests/perf/run.py"), "startup"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "BENCH_STARTUP_RUNS": "1"},
    )
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["metric", "measured", "goal", "pass"]
    assert any("tritondev --help" in line for line in lines)
