"""What the setup benchmarks share: run `tritondev setup --json`, read its report, time the hand recipe."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.integration.build.harness import REPO, SHELL_FUNCTIONS
from tests.support.cli import tritondev_argv

BUILD_STEPS = ("llvm-configure", "llvm-build", "triton-install")
# The hand recipe: the shell functions that run what setup runs (configure, ninja, pip install -e).
HAND_STEPS = ("triton-configure-mlir", "triton-build-mlir", "triton-pip-install")


def report_of(stdout: str, stderr: str, returncode: int) -> dict[str, Any]:
    if returncode != 0:
        raise RuntimeError(f"setup failed ({returncode}):\n{stderr[-3000:]}")
    report: dict[str, Any] = json.loads(stdout)
    return report


def setup(args: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    """Wall seconds and the JSON report of one `tritondev setup` (args include --json)."""
    started = time.perf_counter()
    proc = subprocess.run(tritondev_argv(*args), env=env, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - started
    return seconds, report_of(proc.stdout, proc.stderr, proc.returncode)


def step_seconds(report: dict[str, Any]) -> dict[str, float]:
    return {s["step"]: float(s["seconds"]) for s in report["steps"] if s["step"] in BUILD_STEPS}


def build_seconds(report: dict[str, Any]) -> float:
    seconds: float = sum(s["seconds"] for s in report["steps"] if s["step"] in BUILD_STEPS and s["status"] == "ran")
    return seconds


def hit_rate(report: dict[str, Any]) -> tuple[int, int]:
    """ccache hits and compilations over every build of one setup."""
    hits = sum(v["hits"] for v in report["ccache"].values())
    return hits, hits + sum(v["misses"] for v in report["ccache"].values())


def delete_build_folders(workspace: Path) -> None:
    shutil.rmtree(workspace / "build")
    for folder in (workspace / "src/triton/build", workspace / "src/triton/python/build"):
        shutil.rmtree(folder, ignore_errors=True)


def noop_median(args: list[str], env: dict[str, str], runs: int, before: Callable[[], object] | None = None) -> float:
    """Median wall time of `runs` re-runs with nothing changed; each must report itself up to date.
    `before` runs before each (not timed)."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        seconds, report = setup(args, env)
        if not report["up_to_date"]:
            raise RuntimeError("a re-run with nothing changed did work: " + json.dumps(report["steps"]))
        times.append(seconds)
    return statistics.median(times)


def hand_recipe(
    workspace: Path,
    env: dict[str, str],
    runs: int,
    before: Callable[[], object] | None = None,
    steps: tuple[str, ...] = HAND_STEPS,
) -> tuple[float, dict[str, float]]:
    """Median wall time of the whole hand recipe (`steps`, shell functions) over `runs` rounds, and the
    median of each step. `before` runs before each round (not timed)."""
    times: dict[str, list[float]] = {step: [] for step in steps}
    for _ in range(runs):
        if before is not None:
            before()
        for step in steps:
            started = time.perf_counter()
            subprocess.run(
                ["bash", "-c", f"source {SHELL_FUNCTIONS}\n{step} >/dev/null"],
                env={**env, "TRITONDEV_WORKSPACE": str(workspace)},
                check=True,
                capture_output=True,
            )
            times[step].append(time.perf_counter() - started)
    totals = [sum(times[step][i] for step in steps) for i in range(runs)]
    return statistics.median(totals), {step: statistics.median(t) for step, t in times.items()}
