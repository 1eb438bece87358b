"""Setup benchmarks on the test world (real builds of the mini LLVM and Triton):

- a no-op re-run of `tritondev setup`: median wall time, and how much faster it is than re-running
  the same recipe by hand through the shell functions (triton-configure-mlir, triton-build-mlir,
  triton-pip-install: configure, build, pip install --no-build-isolation) on the same workspace;
- after deleting the build folders: ccache's hit rate over the rebuild, and the rebuild's speed-up
  over a cold build (the same steps with an empty ccache). Private CCACHE_DIR, HOME and caches.

Run: python tests/perf/run.py setup
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
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.integration.build.harness import REPO as _REPO  # noqa: E402
from tests.integration.build.harness import SHELL_FUNCTIONS, base_env, setup_args  # noqa: E402
from tests.world.world import build_world  # noqa: E402

NOOP_RUNS = 7
HAND_RUNS = 3
BUILD_STEPS = ("llvm-configure", "llvm-build", "triton-install")


def _setup(args: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bootstrap", *args, "--json"], env=env, capture_output=True,
                          text=True, cwd=_REPO)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"setup failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return seconds, json.loads(proc.stdout)


def _build_seconds(report: dict[str, Any]) -> float:
    return sum(s["seconds"] for s in report["steps"] if s["step"] in BUILD_STEPS and s["status"] == "ran")


def _hit_rate(report: dict[str, Any]) -> tuple[int, int]:
    hits = sum(v["hits"] for v in report["ccache"].values())
    calls = hits + sum(v["misses"] for v in report["ccache"].values())
    return hits, calls


def _delete_build_folders(ws: Path) -> None:
    shutil.rmtree(ws / "build")
    for folder in (ws / "src/triton/build", ws / "src/triton/python/build"):
        shutil.rmtree(folder, ignore_errors=True)


def measure(root: Path) -> list[dict[str, object]]:
    world = build_world(root / "world")
    ws = root / "ws"
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=root / "ccache")
    args = setup_args(world, ws, "root-json", "--build-type", "Release")

    _setup(args, env)  # first setup: venv, clones, pip caches warm

    # Cold: build folders gone and an empty ccache.
    _delete_build_folders(ws)
    shutil.rmtree(root / "ccache")
    _, cold = _setup(args, env)
    # Rebuild: build folders gone again, ccache kept.
    _delete_build_folders(ws)
    _, rebuild = _setup(args, env)
    hits, calls = _hit_rate(rebuild)
    rate = hits / calls if calls else 0.0
    cold_s, rebuild_s = _build_seconds(cold), _build_seconds(rebuild)

    noop = []
    for _ in range(NOOP_RUNS):
        seconds, report = _setup(args, env)
        if not report["up_to_date"]:
            raise RuntimeError("a re-run with nothing changed did work: " + json.dumps(report["steps"]))
        noop.append(seconds)
    noop_median = statistics.median(noop)

    hand = []
    script = (f"source {SHELL_FUNCTIONS}\n"
              "triton-configure-mlir >/dev/null && triton-build-mlir >/dev/null && triton-pip-install >/dev/null")
    for _ in range(HAND_RUNS):
        started = time.perf_counter()
        subprocess.run(["bash", "-c", script], env={**env, "TRITONDEV_WORKSPACE": str(ws)}, check=True,
                       capture_output=True)
        hand.append(time.perf_counter() - started)
    hand_median = statistics.median(hand)
    speedup = hand_median / noop_median
    build_speedup = cold_s / rebuild_s if rebuild_s else 0.0
    return [
        {"metric": "setup no-op re-run, median wall time", "measured": f"{noop_median:.2f} s",
         "goal": "<= 1 s", "pass": noop_median <= 1.0},
        {"metric": "  hand recipe via shell functions (configure, build, pip install), median",
         "measured": f"{hand_median:.2f} s", "goal": "-", "pass": True},
        {"metric": "setup no-op re-run vs hand recipe, speed-up", "measured": f"{speedup:.1f}x",
         "goal": ">= 20x", "pass": speedup >= 20},
        {"metric": "rebuild after deleting build folders, ccache hit rate",
         "measured": f"{rate:.1%} ({hits}/{calls})", "goal": ">= 95%", "pass": rate >= 0.95},
        {"metric": "rebuild (warm ccache) vs cold build, speed-up of the build steps",
         "measured": f"{build_speedup:.1f}x ({cold_s:.1f} s -> {rebuild_s:.1f} s)", "goal": ">= 3x",
         "pass": build_speedup >= 3},
    ]


def run() -> list[dict[str, object]]:
    root = Path(tempfile.mkdtemp(prefix="tritondev-bench-setup-"))
    try:
        return measure(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for row in run():
        print(row)
