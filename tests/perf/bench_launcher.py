"""The launcher's cost: `shell/tritondev --help` against `python -m bootstrap --help` run directly with the
launcher's own venv. An up-to-date venv is recognised with bash builtins, so the difference is bash's
start and a few file tests, not a second Python."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from pathlib import Path

GOAL_SECONDS = 0.03
RUNS = 21
REPO = Path(__file__).resolve().parents[2]


def _time(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def run() -> list[dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITONDEV_", "VIRTUAL_ENV"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    launcher = [str(REPO / "shell" / "tritondev"), "--help"]
    subprocess.run(launcher, check=True, capture_output=True, env=env)  # builds .venv-tool if needed, warms caches
    direct = [str(REPO / ".venv-tool" / "bin" / "python"), "-m", "bootstrap", "--help"]
    subprocess.run(direct, check=True, capture_output=True, env=env)
    pairs = [(_time(launcher, env), _time(direct, env)) for _ in range(RUNS)]  # interleaved: the load hits both
    overhead = statistics.median(a - b for a, b in pairs)
    return [
        {
            "metric": "launcher overhead on --help (shell/tritondev vs python -m bootstrap), median of pairs",
            "measured": f"{overhead * 1000:.1f} ms",
            "goal": f"<= {GOAL_SECONDS * 1000:.0f} ms",
            "pass": overhead <= GOAL_SECONDS,
        },
        {
            "metric": "  (python -m bootstrap --help alone, for scale)",
            "measured": f"{statistics.median(b for _, b in pairs):.3f} s",
            "goal": "-",
            "pass": True,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
