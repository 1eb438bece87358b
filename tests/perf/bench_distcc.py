"""distcc benchmark on the test world, with two real distccd daemons on 127.0.0.1.

Workspaces L run `setup` here; workspaces D run `setup --distcc` with the two daemons, one slot each, so
that every LLVM build runs two compiles at once on the same two cores. Each has its own empty ccache
(every compile is a miss) and its own LLVM build registry (nothing borrowed). They run in the order
D L L D, so that a machine getting busier or calmer during the run moves both sides alike. Rows: how
many of the LLVM compiles of the D runs ran on the daemons (distcc's client log, checked against the
daemons' own statistics), and the wall time of D's LLVM builds against L's. Loopback daemons share
this machine's cores, so the time row bounds what distcc costs (preprocessing here, shipping the file,
the daemon's own work), not what it saves: on real build hosts the compiles run on their cores instead.

Run: python tests/perf/run.py distcc
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bootstrap.pipeline.ccache.stats import parse_print_stats  # noqa: E402
from tests.integration.build.harness import base_env  # noqa: E402
from tests.integration.distcc.daemons import DistccDaemon  # noqa: E402
from tests.perf.setup_runs import setup, step_seconds  # noqa: E402
from tests.world.world import build_world  # noqa: E402

OVERHEAD_GOAL = 1.5  # D's LLVM build at most this many times L's on the same cores
LABEL = "root-json"


def _args(world_root: Path, triton_commit: str, ws: Path, *extra: str) -> list[str]:
    return [
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(world_root),
        "--triton-commit",
        triton_commit,
        "--json",
        *extra,
    ]


def _misses(env: dict[str, str]) -> int:
    out = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True, check=True).stdout
    return parse_print_stats(out).get("cache_miss", 0)


def _run_one(
    world_root: Path, commit: str, root: Path, name: str, daemons: list[DistccDaemon] | None
) -> tuple[float, dict[str, Any], int, int]:
    """One cold setup: the LLVM build's seconds, the report, compiles the daemons ran, ccache's misses."""
    env = {
        k: v
        for k, v in base_env(
            root / f"home-{name}", xdg=root / f"xdg-{name}", ccache_dir=root / f"ccache-{name}"
        ).items()
        if not k.startswith("DISTCC_")
    }
    extra = ("--distcc", " ".join(d.token for d in daemons)) if daemons else ()
    before = sum(d.compiles() for d in daemons or ())
    _, report = setup(_args(world_root, commit, root / f"ws-{name}", *extra), env)
    if not report["verify"]["provenance"]["ok"]:
        raise RuntimeError(f"workspace {name} did not verify: {report['verify']}")
    ran = sum(d.compiles() for d in daemons or ()) - before
    return step_seconds(report)["llvm-build"], report, ran, _misses(env)


def measure(root: Path) -> list[dict[str, object]]:
    world = build_world(root / "world")
    commit = world.triton_commits[LABEL]
    daemons = [DistccDaemon(slots=1).start(), DistccDaemon(slots=1).start()]
    runs: dict[str, list[tuple[float, dict[str, Any], int, int]]] = {"D": [], "L": []}
    try:
        for n, name in enumerate("DLLD"):
            runs[name].append(_run_one(world.git_root, commit, root, f"{name}{n}", daemons if name == "D" else None))
    finally:
        for daemon in daemons:
            daemon.remove()
    remote = compiles = 0
    agrees = True
    for _, report, ran, misses in runs["D"]:
        builds = report["distcc"]["builds"]
        llvm = builds["LLVM build"]
        remote += llvm["remote"]
        compiles += llvm["remote"] + llvm["local"]
        # Every compile a daemon ran is one the client log names (plus, on each of the 2 daemons, the proof's
        # C file, C++ file and the compile with the build's debug flags), and every ccache miss went to distcc.
        named = sum(b["remote"] for b in builds.values())
        agrees &= ran == named + 2 * 3 and misses == named + sum(b["local"] for b in builds.values())
    d, local = sum(r[0] for r in runs["D"]), sum(r[0] for r in runs["L"])
    ratio = d / local if local else float("inf")
    shown = ", ".join(f"{r[0]:.1f}" for r in runs["D"]), ", ".join(f"{r[0]:.1f}" for r in runs["L"])
    jobs = runs["D"][0][1]["jobs"]["compile"], runs["L"][0][1]["jobs"]["compile"]
    return [
        {
            "metric": "distcc: the test world's LLVM compiles that ran on 2 loopback distccd daemons (2 cold builds; "
            "client log and the daemons' own statistics)",
            "measured": f"{remote}/{compiles} ({compiles - remote} here; "
            f"statistics {'agree' if agrees else 'DISAGREE'})",
            "goal": "all of them",
            "pass": remote == compiles > 0 and agrees,
        },
        {
            "metric": "distcc: wall time of that LLVM build, 2 loopback daemons (1 slot each) vs here (2 jobs), same "
            "2 cores, order D L L D",
            "measured": f"{ratio:.2f}x (D {shown[0]} s, L {shown[1]} s; jobs {jobs[0]} vs {jobs[1]})",
            "goal": f"<= {OVERHEAD_GOAL}x (loopback: distcc's cost, not its gain)",
            "pass": ratio <= OVERHEAD_GOAL,
        },
    ]


def run() -> list[dict[str, object]]:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tritondev-bench-distcc-") as folder:
        rows = measure(Path(folder))
    print(f"  distcc benchmark: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
