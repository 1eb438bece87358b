"""`tritondev bisect` against bisecting by hand, on the test world (real builds of the mini LLVM and Triton).

1. 16 Triton commits with a constant LLVM pin (one commit does not compile, one is the regression):
   `tritondev bisect triton` (every step incremental, the starting build reinstalled at the end)
   against 4 hand steps (log2 16) on the commits it tested first, each a fresh `pip install -e .`:
   checkout, build folder removed (as pip's build isolation or a clean tree gives), `pip install
   --no-build-isolation -e .` with setup's build environment, the test.
2. 8 commits across an LLVM bump: the bisect (each LLVM built once, by key) against hand steps on
   the same commits that build the commit's LLVM in a fresh build folder each time (as a hand script
   around `make dev-install-llvm` that clears the LLVM build does), then a fresh `pip install -e .`.

ccache is warm for both sides (the setup before them filled it), so the hand steps are not charged
for a cold compiler cache. Reported: wall-time ratios (bisect / hand) and the LLVM builds each ran.

Run: python tests/perf/run.py bisect
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.integration.build.harness import base_env  # noqa: E402
from tests.world.bisect_world import CHECK_ADD, build_bisect_world  # noqa: E402

HAND_STEPS = 4  # log2(16)


def _tritondev(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "bootstrap", *args], env=env, cwd=cwd, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tritondev {' '.join(args[:2])} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def _bisect(common: list[str], good: str, bad: str, env: dict[str, str], cwd: Path) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    proc = _tritondev(["bisect", "triton", *common, "--good", good, "--bad", bad, "--json", "--", "python",
                       "check_add.py"], env, cwd)
    return time.perf_counter() - started, json.loads(proc.stdout)


def _sh(argv: list[str], env: dict[str, str], cwd: Path | None = None, check: bool = True) -> int:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=check).returncode


class Hand:
    """Bisect steps by hand in the benchmark's workspace, with setup's own build values."""

    def __init__(self, ws: Path, env: dict[str, str], cwd: Path) -> None:
        state = json.loads((ws / "state" / "setup.json").read_text())
        self.ws, self.cwd, self.python = ws, cwd, state["python"]
        self.triton = Path(state["triton_src"])
        self.build_env = {**env, **dict(state["install"]["env"])}
        self.env = env
        self.configure = self._array("TRITON_DEV_LLVM_CONFIGURE")
        self.llvm_builds = 0

    def _array(self, name: str) -> list[str]:
        script = f'source "{self.ws}/state/triton-dev.sh"; printf "%s\\0" "${{{name}[@]}}"'
        out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout.decode()
        return [a for a in out.split("\0") if a]

    def llvm(self, commit: str) -> Path:
        """The LLVM at `commit` built in a fresh folder (what a hand script that clears it gets)."""
        source, build = self.ws / "src" / "llvm-project", self.ws / "hand-llvm"
        shutil.rmtree(build, ignore_errors=True)
        _sh(["git", "-C", str(source), "checkout", "-q", "--detach", commit], self.env)
        argv = list(self.configure)
        argv[argv.index("-B") + 1] = str(build)
        _sh(argv, self.env)
        _sh(["ninja", "-C", str(build)], self.env)
        self.llvm_builds += 1
        return build

    def step(self, commit: str, llvm: Path | None = None) -> bool:
        """Checkout, fresh `pip install -e .`, the test; True when it built."""
        _sh(["git", "-C", str(self.triton), "checkout", "-q", "--detach", commit], self.env)
        shutil.rmtree(self.triton / "build", ignore_errors=True)
        env = dict(self.build_env)
        if llvm is not None:
            env.update(LLVM_SYSPATH=str(llvm), LLVM_INCLUDE_DIRS=str(llvm / "include"),
                       LLVM_LIBRARY_DIR=str(llvm / "lib"))
        built = _sh([self.python, "-m", "pip", "install", "--no-build-isolation", "-e", str(self.triton)], env,
                    check=False) == 0
        if built:
            _sh([self.python, "check_add.py"], self.env, self.cwd, check=False)
        return built


def measure(root: Path) -> list[dict[str, object]]:
    bw = build_bisect_world(root / "world")
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=root / "ccache")
    ws = root / "ws"
    (root / "check_add.py").write_text(CHECK_ADD)
    common = ["--workspace", str(ws), "--mirror", str(bw.world.git_root), "--jobs", "2", "--link-jobs", "2"]
    _tritondev(["setup", *common, "--llvm", "source", "--triton-commit", bw.triton.good], env, root)

    constant_s, constant = _bisect(common, bw.triton.good, bw.triton.bad, env, root)
    bump_s, bump = _bisect(common, bw.bump.good, bw.bump.bad, env, root)
    assert constant["first_bad"]["commit"] == bw.triton.labels["regression"], constant
    assert bump["first_bad"]["commit"] == bw.bump.labels["regression"], bump

    hand = Hand(ws, env, root)
    started = time.perf_counter()
    for step in constant["steps"][:HAND_STEPS]:
        hand.step(step["commit"])
    hand_s = time.perf_counter() - started
    started = time.perf_counter()
    for step in bump["steps"]:
        hand.step(step["commit"], hand.llvm(step["llvm_commit"]))
    hand_bump_s = time.perf_counter() - started

    ratio, bump_ratio = constant_s / hand_s, bump_s / hand_bump_s
    steps_s = sum(s["seconds"] for s in constant["steps"])
    return [
        {"metric": f"bisect of 16 commits ({len(constant['steps'])} steps, one skipped, starting build reinstalled) / "
                   f"{HAND_STEPS} hand steps (fresh pip install -e .), wall time",
         "measured": f"{ratio:.2f} ({constant_s:.1f} s vs {hand_s:.1f} s)", "goal": "<= 1.5", "pass": ratio <= 1.5},
        {"metric": "  the bisect's steps alone (no reinstall at the end) / the hand steps",
         "measured": f"{steps_s / hand_s:.2f} ({steps_s:.1f} s vs {hand_s:.1f} s)", "goal": "-", "pass": True},
        {"metric": "  LLVM builds: bisect vs hand, constant pin", "measured": f"{constant['llvm_builds']} vs 0",
         "goal": "0", "pass": constant["llvm_builds"] == 0},
        {"metric": f"bisect of 8 commits across an LLVM bump ({len(bump['steps'])} steps) / the same steps by hand "
                   "(fresh LLVM + fresh pip install -e .), wall time",
         "measured": f"{bump_ratio:.2f} ({bump_s:.1f} s vs {hand_bump_s:.1f} s)", "goal": "<= 1.5",
         "pass": bump_ratio <= 1.5},
        {"metric": "  LLVM builds: bisect vs hand, across the bump",
         "measured": f"{bump['llvm_builds']} vs {hand.llvm_builds}", "goal": "1 (each LLVM once)",
         "pass": bump["llvm_builds"] == 1},
    ]


def run() -> list[dict[str, object]]:
    root = Path(tempfile.mkdtemp(prefix="tritondev-bench-bisect-"))
    try:
        return measure(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for row in run():
        print(row)
