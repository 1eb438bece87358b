"""CLI start-up: `tritondev --help` must start fast because heavy modules are imported lazily."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

GOAL_SECONDS = 0.3
RUNS = 15


def measure(args: list[str]) -> float:
    # Users' Pythons cache bytecode; an environment that turns that off would measure compiling.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(args, check=True, capture_output=True, env=env)  # warm the bytecode cache
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def run() -> list[dict[str, object]]:
    help_median = measure([sys.executable, "-m", "bootstrap", "--help"])
    bare_python = measure([sys.executable, "-c", "pass"])
    return [
        {
            "metric": "tritondev --help, median wall time",
            "measured": f"{help_median:.3f} s",
            "goal": f"<= {GOAL_SECONDS} s",
            "pass": help_median <= GOAL_SECONDS,
        },
        {
            "metric": "  (python start-up alone, for scale)",
            "measured": f"{bare_python:.3f} s",
            "goal": "-",
            "pass": True,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
