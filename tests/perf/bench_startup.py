"""CLI start-up: `--help` through the README's command, `./shell/tritondev`, and what the launcher adds.

The launcher (shell/tritondev) checks that its private venv (.venv-tool) was built from this
checkout's pyproject.toml and this Python, then execs the venv's `tritondev`. Three commands are
timed, interleaved so that machine noise hits all alike, and their medians compared:

- `./shell/tritondev --help`: what a user types (the README's set-up);
- `.venv-tool/bin/tritondev --help`: what the launcher execs; the difference is the launcher's cost;
- `python -m bootstrap --help` from the checkout: tritondev itself without any launcher.

The first launcher run (not timed) creates .venv-tool when it is missing or stale.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # run as a file: the tests' helpers are imported from the checkout

from tests.support.cli import tritondev_argv  # noqa: E402
from tests.support.environ import child_environ  # noqa: E402

LAUNCHER = REPO / "shell" / "tritondev"
TOOL_VENV = REPO / ".venv-tool"
GOAL_SECONDS = 0.3
LAUNCHER_GOAL = 0.03  # seconds the launcher may add to what it runs
# BENCH_STARTUP_RUNS: fewer rounds, for a test that only proves the runner works (figures then mean little).
RUNS = int(os.environ.get("BENCH_STARTUP_RUNS", "15"))


def _env() -> dict[str, str]:
    # Users' Pythons cache bytecode; an environment that turns that off would measure compiling.
    env = child_environ()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _once(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, timeout=900)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-1500:]}")
    return seconds


def medians(commands: dict[str, list[str]], runs: int = RUNS) -> dict[str, float]:
    """Median wall time of each command; one untimed run each first (venv, bytecode), then interleaved."""
    env = _env()
    for argv in commands.values():
        _once(argv, env)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(_once(argv, env))
    return {name: statistics.median(times) for name, times in samples.items()}


def run() -> list[dict[str, object]]:
    m = medians(
        {
            "launcher": [str(LAUNCHER), "--help"],
            "entry": [str(TOOL_VENV / "bin" / "tritondev"), "--help"],  # exists once the launcher ran
            "direct": tritondev_argv("--help"),
            "python": [sys.executable, "-c", "pass"],
        }
    )
    added = m["launcher"] - m["entry"]
    return [
        {
            "metric": "`./shell/tritondev --help` (the README's command), median wall time",
            "measured": f"{m['launcher']:.3f} s",
            "goal": f"<= {GOAL_SECONDS} s",
            "pass": m["launcher"] <= GOAL_SECONDS,
        },
        {
            "metric": "  `python -m bootstrap --help` from the checkout (no launcher), median",
            "measured": f"{m['direct']:.3f} s; launcher {m['launcher'] / m['direct']:.2f}x it",
            "goal": "-",
            "pass": True,
        },
        {
            "metric": "what the launcher adds: `./shell/tritondev --help` minus the `.venv-tool/bin/tritondev --help` "
            "it execs, medians",
            "measured": f"{added:+.3f} s ({m['launcher']:.3f} s vs {m['entry']:.3f} s)",
            "goal": f"<= {LAUNCHER_GOAL} s",
            "pass": added <= LAUNCHER_GOAL,
        },
        {
            "metric": "  (python start-up alone, for scale)",
            "measured": f"{m['python']:.3f} s",
            "goal": "-",
            "pass": True,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
