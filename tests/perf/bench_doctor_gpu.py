"""`tritondev doctor` on a GPU machine against `python -m torch.utils.collect_env`, same interpreter.

On a machine with an NVIDIA GPU the interpreter that holds its torch and Triton is the target of
both: doctor runs every check (the GPU, the driver, ptxas proved by compiling, ...) with --json,
collect_env its whole report (which also asks the driver and nvidia-smi). Runs alternate so that
noise hits both alike; one untimed run of each first (the first import of torch reads cold files);
the medians are compared. Without a GPU (no `nvidia-smi`, or torch sees no CUDA device) the row is
skipped, with the reason.

    python3 tests/perf/run.py doctor_gpu                     # the interpreter running it is the target
    BENCH_GPU_PYTHON=/path/to/python python3 tests/perf/run.py doctor_gpu
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # run as a file: the tests' helpers are imported from the checkout

from tests.support.cli import tritondev_argv  # noqa: E402
from tests.support.environ import child_environ  # noqa: E402

GOAL_RATIO = 0.25
RUNS = 5
METRIC = "doctor on a GPU machine / torch.utils.collect_env, same interpreter, median wall time"


def _timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    return time.perf_counter() - started, proc


def why_no_gpu(python: str, env: dict[str, str]) -> str | None:
    """None when this machine has an NVIDIA GPU that torch in `python` sees; else the reason."""
    if shutil.which("nvidia-smi") is None:
        return "no nvidia-smi on PATH"
    listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    if listing.returncode != 0 or "GPU" not in listing.stdout:
        return f"nvidia-smi -L lists no GPU (exit {listing.returncode})"
    probe = subprocess.run(
        [python, "-c", "import torch; print(torch.cuda.device_count())"], env=env, capture_output=True, text=True
    )
    if probe.returncode != 0:
        return f"{python} cannot import torch"
    if probe.stdout.strip() in ("", "0"):
        return f"torch in {python} sees no CUDA device"
    return None


def measure(python: str, env: dict[str, str], folder: str) -> dict[str, object]:
    doctor = tritondev_argv("doctor", "--python", python, "--workspace", os.path.join(folder, "ws"), "--json")
    collect = [python, "-m", "torch.utils.collect_env"]
    _, first = _timed(doctor, env, folder)
    _, reference = _timed(collect, env, folder)
    if reference.returncode != 0:
        raise RuntimeError(f"collect_env failed: {reference.stderr[-800:]}")
    report = json.loads(first.stdout)
    if "checks" not in report:  # an error document: say what doctor said
        raise RuntimeError(f"doctor failed (exit {first.returncode}): {first.stdout[-800:]} {first.stderr[-1500:]}")
    doctor_times, collect_times = [], []
    for _ in range(RUNS):
        doctor_times.append(_timed(doctor, env, folder)[0])
        collect_times.append(_timed(collect, env, folder)[0])
    gpu = (
        subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True)
        .stdout.strip()
        .splitlines()[0]
    )
    d, c = statistics.median(doctor_times), statistics.median(collect_times)
    return {
        "metric": f"{METRIC} ({gpu}, {len(report['checks'])} checks)",
        "measured": f"{d / c:.2f} ({d:.2f} s / {c:.2f} s)",
        "goal": f"<= {GOAL_RATIO}",
        "pass": d / c <= GOAL_RATIO,
    }


def run() -> list[dict[str, object]]:
    python = os.environ.get("BENCH_GPU_PYTHON") or sys.executable
    env = child_environ()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    reason = why_no_gpu(python, env)
    if reason is not None:
        return [{"metric": METRIC, "measured": f"skipped: {reason}", "goal": f"<= {GOAL_RATIO}", "pass": None}]
    with tempfile.TemporaryDirectory(prefix="bench-doctor-gpu-") as folder:
        return [measure(python, env, folder)]


if __name__ == "__main__":
    for row in run():
        print(row)
