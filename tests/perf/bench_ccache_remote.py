"""ccache remote storage benchmark on the test world, with a real redis-server on 127.0.0.1:

workspace A runs `setup --ccache-remote URL` cold (empty local cache, empty remote); workspace B,
on the same pins in another folder with its own empty local cache (and its own LLVM build registry,
so nothing is borrowed from A), runs the same. Rows: the share of B's compilations answered by the
remote (ccache's own counters of B's cache folder), and how much faster B's build steps ran than
A's (configure, LLVM build, Triton build and install, as setup timed them).

Run: python tests/perf/run.py ccache_remote
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bootstrap.pipeline.ccache.stats import delta, parse_print_stats  # noqa: E402
from tests.integration.build.harness import base_env, setup_args  # noqa: E402
from tests.integration.ccache_remote.redis import RedisServer  # noqa: E402
from tests.perf.setup_runs import BUILD_STEPS, setup, step_seconds  # noqa: E402
from tests.world.world import build_world  # noqa: E402

RATE_GOAL = 0.90
SPEEDUP_GOAL = 3.0


def measure(root: Path) -> list[dict[str, object]]:
    world = build_world(root / "world")
    redis = RedisServer(root / "redis").start()
    try:
        seconds: dict[str, dict[str, float]] = {}
        counters: dict[str, dict[str, int]] = {}
        for name in ("A", "B"):
            env = base_env(root / f"home-{name}", xdg=root / f"xdg-{name}", ccache_dir=root / f"ccache-{name}")
            _, report = setup(
                [*setup_args(world, root / f"ws-{name}", "root-json", "--ccache-remote", redis.url), "--json"], env
            )
            if not report["verify"]["provenance"]["ok"]:
                raise RuntimeError(f"workspace {name} did not verify: {report['verify']}")
            ran = [s["step"] for s in report["steps"] if s["step"] in BUILD_STEPS and s["status"] == "ran"]
            if len(ran) != len(BUILD_STEPS):
                raise RuntimeError(f"workspace {name} did not run every build step: {ran}")
            seconds[name] = step_seconds(report)
            stats = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True, check=True)
            counters[name] = parse_print_stats(stats.stdout)
    finally:
        redis.stop()
    b = delta({}, counters["B"])
    a_total, b_total = sum(seconds["A"].values()), sum(seconds["B"].values())
    ratio = a_total / b_total if b_total else 0.0
    per_step = ", ".join(f"{k} {seconds['A'][k]:.1f}/{seconds['B'][k]:.1f} s" for k in BUILD_STEPS)
    return [
        {
            "metric": "ccache remote: B's compilations answered by the remote (A cold, B empty local cache)",
            "measured": f"{b.remote_rate:.0%} ({b.remote_hits}/{b.calls}, {b.local_hits} local, {b.misses} misses)",
            "goal": f">= {RATE_GOAL:.0%}",
            "pass": b.remote_rate >= RATE_GOAL,
        },
        {
            "metric": "ccache remote: A/B time of the build steps (configure, LLVM build, Triton build+install)",
            "measured": f"{ratio:.1f}x ({a_total:.1f} s / {b_total:.1f} s; {per_step})",
            "goal": f">= {SPEEDUP_GOAL:.0f}x",
            "pass": ratio >= SPEEDUP_GOAL,
        },
    ]


def run() -> list[dict[str, object]]:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tritondev-bench-ccache-remote-") as folder:
        rows = measure(Path(folder))
    print(f"  ccache remote benchmark: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
