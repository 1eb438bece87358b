"""A full `tritondev doctor` run against `python -m torch.utils.collect_env` in the same environment.

Both look at the same venv (triton 3.9.0, torch 2.13.0 CPU, numpy) from the same directory;
doctor runs every check (--json, so the count is read back) and collect_env its whole report.
Runs alternate so that machine noise hits both sides alike; the medians are compared.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))

from tests.support.cli import tritondev_argv  # noqa: E402
from tests.support.environ import child_environ  # noqa: E402
from tests.support.venvs import triton_venv  # noqa: E402

GOAL_RATIO = 0.5
MIN_CHECKS = 25
RUNS = 5


def _timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    return time.perf_counter() - started, result


def run() -> list[dict[str, object]]:
    py = triton_venv()
    repo = str(HERE.parents[2])
    env = child_environ()
    env["PYTHONPATH"] = repo
    with tempfile.TemporaryDirectory(prefix="bench-doctor-") as tmp:
        doctor = tritondev_argv("doctor", "--python", str(py), "--workspace", os.path.join(tmp, "ws"), "--json")
        collect = [str(py), "-m", "torch.utils.collect_env"]
        # one warm-up each: the first import of torch or triton reads cold files
        _, first = _timed(doctor, env, tmp)
        _, reference = _timed(collect, env, tmp)
        if reference.returncode != 0:
            raise RuntimeError(f"collect_env failed: {reference.stderr[-500:]}")
        checks = len(json.loads(first.stdout)["checks"])
        doctor_times, collect_times = [], []
        for _ in range(RUNS):
            seconds, _ = _timed(doctor, env, tmp)
            doctor_times.append(seconds)
            seconds, _ = _timed(collect, env, tmp)
            collect_times.append(seconds)
    d, c = statistics.median(doctor_times), statistics.median(collect_times)
    ratio = d / c
    return [
        {
            "metric": f"doctor (all {checks} checks) / collect_env, median wall time",
            "measured": f"{ratio:.2f} ({d:.2f} s / {c:.2f} s)",
            "goal": f"<= {GOAL_RATIO}",
            "pass": ratio <= GOAL_RATIO,
        },
        {
            "metric": "doctor checks in a full run",
            "measured": str(checks),
            "goal": f">= {MIN_CHECKS}",
            "pass": checks >= MIN_CHECKS,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
