"""Fault test: SIGKILL at 20 random moments during `tritondev setup`, each followed by a re-run
(and Ctrl-C twice).

Every re-run must end with Triton installed and verified, and no checkout changed (HEAD at the pin,
nothing modified or untracked). Before each kill the workspace is put in a state with work to do
(a fresh workspace, a deleted venv, LLVM build or checkouts, another build type, or nothing), so the
kills land in every phase: venv creation, clones, cmake, ninja, pip, verification, state writes.

The whole process group is killed: killing only the tritondev process would leave its ninja or pip
running on (as after a `kill -9` of a parent in a terminal), which is not the crash being tested.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.build.harness import base_env, checkout_state, installed_triton, setup_args, tritondev
from tests.support.cli import tritondev_argv
from tests.support.run_shared import warm_ccache
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
KILLS = 20


def test_kill_9_at_random_moments_then_rerun(world: World, tmp_path: Path) -> None:
    seed = int(os.environ.get("TRITONDEV_FAULT_SEED_FOR_TESTS", "0") or 0) or random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"fault test seed {seed} (set TRITONDEV_FAULT_SEED_FOR_TESTS to repeat)")
    ws = tmp_path / "ws"
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=warm_ccache())
    env.pop("TRITONDEV_FAULT_SEED_FOR_TESTS", None)
    build_type = ["Release"]

    def args() -> list[str]:
        return setup_args(world, ws, "root-json", "--build-type", build_type[0], "--skip-verify")

    started = time.monotonic()
    first = tritondev(*args(), env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    full = time.monotonic() - started
    history = [f"first full setup {full:.1f}s"]

    def llvm_build() -> Path:
        return next((ws / "build" / "llvm").iterdir())

    def toggle() -> None:
        build_type[0] = "Debug" if build_type[0] == "Release" else "Release"

    # Each kind: how to make work for setup, and roughly how long that work takes (of a full setup).
    kinds: dict[str, tuple[Callable[[], None], float]] = {
        "fresh": (lambda: shutil.rmtree(ws), 1.0),
        "venv": (lambda: shutil.rmtree(ws / "venv"), 0.4),
        "triton": (toggle, 0.25),
        "llvm": (lambda: shutil.rmtree(llvm_build()), 0.2),
        "checkouts": (lambda: shutil.rmtree(ws / "src"), 0.3),
        "nothing": (lambda: None, 0.03),
    }
    plan = ["fresh"] + ["venv"] + ["triton"] * 5 + ["llvm"] * 4 + ["checkouts"] * 3 + ["nothing"] * 6
    rng.shuffle(plan)
    assert len(plan) == KILLS
    estimate = {kind: max(0.3, full * share) for kind, (_, share) in kinds.items()}
    for i, kind in enumerate(plan):
        prepare = kinds[kind][0]
        # Kill at a random moment of the work; if the run finished first, learn how long that kind
        # takes and try again, so that every one of the 20 is a real kill.
        for _attempt in range(4):
            prepare()
            delay = rng.uniform(0.05, estimate[kind])
            begun = time.monotonic()
            proc = subprocess.Popen(
                tritondev_argv(*args()),
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            # It finished: that must have been a success (a failure here would be a bug of its own).
            assert proc.returncode == 0, f"{kind}: setup failed on its own (exit {proc.returncode})\n" + "\n".join(
                history
            )
            estimate[kind] = max(0.1, time.monotonic() - begun)
        else:
            pytest.fail(f"setup of kind {kind} always finished before the kill: " + "\n".join(history))
        t0 = time.monotonic()
        rerun = tritondev(*args(), env=env)
        history.append(f"{i}: {kind} killed at {delay:.2f}s, re-run {time.monotonic() - t0:.1f}s")
        assert rerun.returncode == 0, "\n".join(history) + "\n" + rerun.stderr[-3000:]
        facts = installed_triton(ws / "venv" / "bin" / "python", ws)
        sha = world.triton_commits["root-json"]
        assert facts["version"] == f"3.8.0+git{sha[:8]}", history
        assert Path(facts["file"]).resolve().parent == (ws / "src/triton/python/triton").resolve()
        assert facts["llvm_commit"] == world.llvm_commit
        assert facts["build_type"] == build_type[0]  # Release: CMake's, through TRITON_APPEND_CMAKE_ARGS
        assert checkout_state(ws / "src/triton") == (sha, ""), history
        assert checkout_state(ws / "src/llvm-project") == (world.llvm_commit, ""), history
    # Ctrl-C (SIGINT to the foreground process group, as a terminal sends it) while Triton builds:
    # exit 130, then a re-run finishes.
    for _ in range(2):
        toggle()
        interrupted = subprocess.Popen(
            tritondev_argv(*args()),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.5, max(0.6, estimate["triton"])))
        os.killpg(interrupted.pid, signal.SIGINT)
        _, err = interrupted.communicate(timeout=600)
        assert interrupted.returncode in (0, 130), err[-2000:]
        assert "Traceback" not in err
        rerun = tritondev(*args(), env=env)
        assert rerun.returncode == 0, rerun.stderr[-3000:]
        history.append(f"Ctrl-C: exit {interrupted.returncode}, re-run ok")
    # After all that, a last run finds nothing to do and verifies (provenance and all).
    last = tritondev(*setup_args(world, ws, "root-json", "--build-type", build_type[0]), env=env)
    assert last.returncode == 0, last.stderr[-3000:]
    print("\n".join(history))
