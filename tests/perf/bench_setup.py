"""Setup benchmarks on the test world (real builds of the mini LLVM and Triton):

- a no-op re-run of `tritondev setup`: median wall time, and how much faster it is than re-running
  the same recipe by hand through the shell functions (triton-configure-mlir, triton-build-mlir,
  triton-pip-install: configure, build, pip install --no-build-isolation) on the same workspace;
- after deleting the build folders: ccache's hit rate over the rebuild, and the rebuild's speed-up
  over a cold build (the same steps with an empty ccache). Private CCACHE_DIR, HOME and caches.

Run: python tests/perf/run.py setup
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.integration.build.harness import base_env, setup_args  # noqa: E402
from tests.perf.setup_runs import (  # noqa: E402
    build_seconds,
    delete_build_folders,
    hand_recipe,
    hit_rate,
    noop_median,
    setup,
)
from tests.world.world import build_world  # noqa: E402

NOOP_RUNS = 7
HAND_RUNS = 3


def measure(root: Path) -> list[dict[str, object]]:
    world = build_world(root / "world")
    ws = root / "ws"
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=root / "ccache")
    args = [*setup_args(world, ws, "root-json", "--build-type", "Release"), "--json"]

    setup(args, env)  # first setup: venv, clones, pip caches warm

    # Cold: build folders gone and an empty ccache.
    delete_build_folders(ws)
    shutil.rmtree(root / "ccache")
    _, cold = setup(args, env)
    # Rebuild: build folders gone again, ccache kept.
    delete_build_folders(ws)
    _, rebuild = setup(args, env)
    hits, calls = hit_rate(rebuild)
    rate = hits / calls if calls else 0.0
    cold_s, rebuild_s = build_seconds(cold), build_seconds(rebuild)

    noop_s = noop_median(args, env, NOOP_RUNS)
    hand_median, _ = hand_recipe(ws, env, HAND_RUNS)
    speedup = hand_median / noop_s
    build_speedup = cold_s / rebuild_s if rebuild_s else 0.0
    return [
        {"metric": "setup no-op re-run, median wall time", "measured": f"{noop_s:.2f} s",
         "goal": "<= 1 s", "pass": noop_s <= 1.0},
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
