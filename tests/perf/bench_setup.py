"""Setup benchmarks on the test world (real builds of the mini LLVM and Triton):

- a no-op re-run of `tritondev setup`: median wall time, and how much faster it is than re-running
  the same recipe by hand through the shell functions (triton-configure-mlir, triton-build-mlir,
  triton-pip-install: configure, build, pip install --no-build-isolation) on the same workspace;
- after deleting the build folders: ccache's hit rate over the rebuild, and the rebuild's speed-up
  over a cold build (the same steps with an empty ccache). Private CCACHE_DIR, HOME and caches;
- the default path, `--llvm auto` where Triton's LLVM package exists (served here from a package of
  the source build's own LLVM, pinned by its real sha256 in a Triton commit of the private world): a
  workspace without any llvm-project checkout. Its no-op re-run against the hand recipe of that
  path, `pip install -e .` again (the triton-pip-install shell function: the build requirements,
  then pip install --no-build-isolation -e with the build environment).

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

from bootstrap.git.setup_py import SetupPyArgs  # noqa: E402
from bootstrap.pipeline.llvm.source import detect_host, host_suffix  # noqa: E402
from tests.integration.build.harness import base_env, setup_args  # noqa: E402
from tests.perf.setup_runs import (  # noqa: E402
    build_seconds,
    delete_build_folders,
    hand_recipe,
    hit_rate,
    noop_median,
    setup,
)
from tests.world.packages import PackageServer, commit_llvm_info, package_llvm  # noqa: E402
from tests.world.world import World, build_world  # noqa: E402

NOOP_RUNS = 7
HAND_RUNS = 3
DEFAULT_PATH_GOAL = 0.3  # seconds


def measure(root: Path) -> list[dict[str, object]]:
    world = build_world(root / "world")
    ws = root / "ws"
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=root / "ccache")
    args = [*setup_args(world, ws, "root-json", "--build-type", "Release"), "--json"]

    _, first = setup(args, env)  # first setup: venv, clones, pip caches warm
    default_rows = measure_default_path(root, world, Path(first["llvm_build"]))

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
        {
            "metric": "setup no-op re-run, median wall time",
            "measured": f"{noop_s:.2f} s",
            "goal": "<= 1 s",
            "pass": noop_s <= 1.0,
        },
        {
            "metric": "  hand recipe via shell functions (configure, build, pip install), median",
            "measured": f"{hand_median:.2f} s",
            "goal": "-",
            "pass": True,
        },
        {
            "metric": "setup no-op re-run vs hand recipe, speed-up",
            "measured": f"{speedup:.1f}x",
            "goal": ">= 20x",
            "pass": speedup >= 20,
        },
        {
            "metric": "rebuild after deleting build folders, ccache hit rate",
            "measured": f"{rate:.1%} ({hits}/{calls})",
            "goal": ">= 95%",
            "pass": rate >= 0.95,
        },
        {
            "metric": "rebuild (warm ccache) vs cold build, speed-up of the build steps",
            "measured": f"{build_speedup:.1f}x ({cold_s:.1f} s -> {rebuild_s:.1f} s)",
            "goal": ">= 3x",
            "pass": build_speedup >= 3,
        },
        *default_rows,
    ]


def measure_default_path(root: Path, world: World, llvm_build: Path) -> list[dict[str, object]]:
    """`--llvm auto` with Triton's package on its host (a package of `llvm_build`): the no-op re-run of a
    workspace that has no llvm-project checkout, against `pip install -e .` again."""
    suffix, _ = host_suffix(detect_host(), SetupPyArgs(), {})  # the newest setup.py's rules
    if suffix is None:
        raise RuntimeError("this machine has no prebuilt LLVM suffix")
    package = package_llvm(llvm_build, root / "packages", f"llvm-{world.llvm_commit[:8]}-{suffix}-1")
    info = {"llvm_hash": world.llvm_commit, "build_number": 1, "sha256sum": {suffix: package.sha256}}
    pin = commit_llvm_info(world, "root-json", info)
    ws = root / "ws-default"
    env = base_env(root / "home-default", xdg=root / "xdg-default", ccache_dir=root / "ccache")
    server = PackageServer(root / "packages").start()
    try:
        args = [
            "setup",
            "--workspace",
            str(ws),
            "--mirror",
            str(world.git_root),
            "--triton-commit",
            pin,
            "--jobs",
            "2",
            "--link-jobs",
            "2",
            "--build-type",
            "Release",
            "--llvm-prebuilt-url",
            server.base_url,
            "--json",
        ]
        _, report = setup(args, env)  # --llvm auto: the default
        if report["llvm"]["kind"] != "prebuilt" or (ws / "src" / "llvm-project").exists():
            raise RuntimeError(f"--llvm auto did not take the package: {report['llvm']}")
        noop_s = noop_median(args, env, NOOP_RUNS)
        hand_s = hand_recipe(ws, env, HAND_RUNS, steps=("triton-pip-install",))[0]
    finally:
        server.stop()
    speedup = hand_s / noop_s
    return [
        {
            "metric": "setup no-op re-run, default path (--llvm auto took Triton's LLVM package; no llvm-project "
            "checkout), median wall time",
            "measured": f"{noop_s:.2f} s",
            "goal": f"<= {DEFAULT_PATH_GOAL} s",
            "pass": noop_s <= DEFAULT_PATH_GOAL,
        },
        {
            "metric": "  its hand recipe: `pip install -e .` again (triton-pip-install: requirements, then pip "
            "install -e), median",
            "measured": f"{hand_s:.2f} s",
            "goal": "-",
            "pass": True,
        },
        {
            "metric": "setup no-op re-run vs `pip install -e .` again, default path, speed-up",
            "measured": f"{speedup:.1f}x",
            "goal": ">= 20x",
            "pass": speedup >= 20,
        },
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
