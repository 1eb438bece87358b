"""Benchmarks at LLVM scale: the generated benchmark world (tests/perf/scale), thousands of compile
targets with tablegen steps, heavy translation units and tool links, built by `tritondev setup`
exactly as the test world is (--mirror, a Triton commit pinning the generated LLVM commit).

One run, in this order, every workspace with its own HOME, XDG cache (so no LLVM build is borrowed)
and ccache folder, and a real redis-server as the team's ccache remote:

1. workspace A, cold (empty ccache, empty remote), inside a memory cgroup whose hard limit is the
   budget, with no --jobs: tritondev reads the cgroup's limit and sizes compile and link jobs for it
   (bootstrap.pipeline.host.jobs); the build must finish, and its peak memory is measured. Without a
   cgroup (RSS sampling) nothing enforces the budget, so A is given the jobs that sizing computes for it;
2. A again with nothing changed against the hand recipe through the shell functions (configure,
   no-op ninja, pip install -e), as bench_setup.py does on the test world, with the page cache warm
   and cold (scale/noop.py); the checkouts have llvm-project's and Triton's real numbers of files and
   folders (scale/shape.py), which is what a no-op's check for local changes walks;
3. A after deleting its build folders: ccache's hit rate and the speed-up over step 1's build steps;
4. workspace B, the same sources, empty local ccache, A's remote: the share answered by the remote
   and how much faster B's build steps ran than A's (B and U check out the lean commits, whose
   llvm-project has the generated sources and only the filler a build reads, llvm/test and
   mlir/test: the same configure and build as A's, 100,000 fewer files to write and delete);
5. workspace U with upstream's default job count (MAX_JOBS = 2 x cores, no link pool), cold, with
   no limit but a safety cap: its peak against the same budget.

    python tests/perf/run.py scale
    BENCH_SCALE_UNITS=600 python tests/perf/run.py scale     # smaller tree, for a quick check
    BENCH_SCALE_BUDGET_GIB=3 ...                             # the memory budget (default 3 GiB)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bootstrap.pipeline.ccache.stats import CcacheDelta, delta, parse_print_stats  # noqa: E402
from bootstrap.pipeline.host.jobs import GIB, Jobs, Resources, detect, size_jobs  # noqa: E402
from tests.integration.build.harness import base_env  # noqa: E402
from tests.integration.ccache_remote.redis import RedisServer  # noqa: E402
from tests.perf.scale.measure import HEAVY  # noqa: E402
from tests.perf.scale.memory import Measured, Method, probe, run_measured  # noqa: E402
from tests.perf.scale.noop import describe_tree, noop_rows  # noqa: E402
from tests.perf.scale.sources import DEFAULT_UNITS  # noqa: E402
from tests.perf.scale.world import HEAVY_COMPILE_MIB, ScaleWorld, build_scale_world  # noqa: E402
from tests.perf.setup_runs import (  # noqa: E402
    BUILD_STEPS,
    delete_build_folders,
    hit_rate,
    report_of,
    setup,
    step_seconds,
)
from tests.support.cli import tritondev_argv  # noqa: E402

UNITS = int(os.environ.get("BENCH_SCALE_UNITS", str(DEFAULT_UNITS)))
BUDGET = int(float(os.environ.get("BENCH_SCALE_BUDGET_GIB", "3")) * GIB)
BUILD_TYPE = "Release"


@dataclass(frozen=True)
class Workspace:
    root: Path
    env: dict[str, str]
    args: list[str]


def _workspace(root: Path, scale: ScaleWorld, name: str, jobs: Jobs | None, *extra: str) -> Workspace:
    """Its own HOME, XDG cache (so no LLVM build is borrowed from another) and ccache folder; jobs
    None lets tritondev size them. A measures the no-op too and gets llvm-project's every file; the
    others build the same sources from the lean commits (only the filler a build reads)."""
    env = base_env(root / f"home-{name}", xdg=root / f"xdg-{name}", ccache_dir=root / f"ccache-{name}")
    ws = root / f"ws-{name}"
    given = ["--jobs", str(jobs.compile), "--link-jobs", str(jobs.link)] if jobs else []
    commit = scale.triton_commit if name == "A" else scale.lean_triton_commit
    args = [
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(scale.world.git_root),
        "--triton-commit",
        commit,
        "--build-type",
        BUILD_TYPE,
        "--llvm",
        "source",
        *given,
        *extra,
        "--json",
    ]
    return Workspace(ws, env, args)


def _jobs_used(report: dict[str, Any], expected: Jobs) -> Jobs:
    """The jobs A's cold build ran with; inside the cgroup they must be the sizing of the budget."""
    used = report["jobs"]
    if (used["compile"], used["link"]) != (expected.compile, expected.link):
        raise RuntimeError(f"tritondev sized {used} inside the {_gib(BUDGET)} cgroup, expected {expected}")
    return Jobs(int(used["compile"]), int(used["link"]), str(used["reason"]))


def _ran_every_build_step(report: dict[str, Any], what: str) -> float:
    ran = [s["step"] for s in report["steps"] if s["step"] in BUILD_STEPS and s["status"] == "ran"]
    if len(ran) != len(BUILD_STEPS):
        raise RuntimeError(f"{what} did not run every build step: {ran}")
    return sum(step_seconds(report).values())


def _compile_targets(report: dict[str, Any], ws: Workspace) -> tuple[int, int]:
    """Compile commands of the LLVM and the Triton build, and how many of them are heavy."""
    llvm = json.loads((Path(report["llvm_build"]) / "compile_commands.json").read_text())
    triton = json.loads((ws.root / "src/triton/compile_commands.json").read_text())
    return len(llvm) + len(triton), sum(1 for entry in llvm if HEAVY.search(entry["file"]))


def _gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


def _log(message: str) -> None:
    print(f"  scale: {message}", file=sys.stderr, flush=True)


def _memory_rows(
    size: str,
    heavy: int,
    method: Method,
    sized: Jobs,
    budgeted: Measured,
    upstream: Measured,
    upstream_jobs: int,
    cap: int,
) -> list[dict[str, object]]:
    fits = budgeted.returncode == 0 and budgeted.oom_kills == 0 and budgeted.peak <= BUDGET
    killed = f", killed at the {_gib(cap)} safety cap" if upstream.oom_kills else ""
    charged = f"; page cache included {_gib(upstream.peak_charged)}" if upstream.peak_charged else ""
    verdict = "over" if upstream.peak > BUDGET else "within"
    from_cgroup = ", sized by tritondev from the cgroup's limit" if method.kind != "rss" else ""
    return [
        {"metric": f"{size}: memory measured by", "measured": method.describe(), "goal": "-", "pass": True},
        {
            "metric": f"{size}: cold build in a {_gib(BUDGET)} budget, jobs from tritondev's sizing of it "
            f"({sized.compile} compile, {sized.link} link{from_cgroup}; "
            f"{heavy} compiles of {HEAVY_COMPILE_MIB:,} MiB)",
            "measured": f"peak {_gib(budgeted.peak)}, {'finished' if budgeted.returncode == 0 else 'FAILED'}, "
            f"{budgeted.oom_kills} OOM kills",
            "goal": f"<= {_gib(BUDGET)}, finishes",
            "pass": fits,
        },
        {
            "metric": f"{size}: same cold build with upstream's default jobs (MAX_JOBS = 2 x cores = "
            f"{upstream_jobs}, no link pool)",
            "measured": f"peak {_gib(upstream.peak)}, {upstream.peak / BUDGET:.1f}x: {verdict} the budget"
            f"{killed}{charged}",
            "goal": "- (reference)",
            "pass": True,
        },
    ]


def measure(root: Path) -> list[dict[str, object]]:
    started = time.monotonic()
    scale = build_scale_world(root / "world", UNITS)
    _log(f"world with {UNITS} generated translation units: {time.monotonic() - started:.0f} s")
    method = probe()
    cpus = detect().cpus
    expected = size_jobs(Resources(cpus=cpus, mem_available=BUDGET), BUILD_TYPE)
    redis = RedisServer(root / "redis").start()
    try:
        enforced = method.kind != "rss"
        a = _workspace(root, scale, "A", None if enforced else expected, "--ccache-remote", redis.url)
        budgeted = run_measured(tritondev_argv(*a.args), env=a.env, cwd=REPO, limit=BUDGET, method=method)
        cold = report_of(budgeted.stdout, budgeted.stderr, budgeted.returncode)
        sized = _jobs_used(cold, expected)
        # The later runs are outside the cgroup: they keep the cold build's jobs, so times compare.
        a = _workspace(root, scale, "A", sized, "--ccache-remote", redis.url)
        cold_s = _ran_every_build_step(cold, "workspace A")
        targets, heavy = _compile_targets(cold, a)
        size = f"scale ({scale.llvm_tree.files:,}-file LLVM checkout, {targets:,} compile targets)"
        _log(f"A cold: {budgeted.seconds:.0f} s, peak {_gib(budgeted.peak)}; {size}")

        tree = describe_tree(scale.llvm_tree, scale.triton_tree, Path(cold["llvm_build"]), targets)
        noop = noop_rows(size, tree, a.args, a.env, a.root)
        _log("; ".join(f"{str(r['metric']).split(': ', 1)[1]}: {r['measured']}" for r in noop[1:]))

        delete_build_folders(a.root)
        _, rebuild = setup(a.args, a.env)
        hits, calls = hit_rate(rebuild)
        rebuild_s = _ran_every_build_step(rebuild, "the rebuild")
        _log(f"rebuild: {rebuild_s:.0f} s, {hits}/{calls} hits")

        b = _workspace(root, scale, "B", sized, "--ccache-remote", redis.url)
        _, team = setup(b.args, b.env)
        team_s = _ran_every_build_step(team, "workspace B")
        stats = subprocess.run(["ccache", "--print-stats"], env=b.env, capture_output=True, text=True, check=True)
        remote = delta({}, parse_print_stats(stats.stdout))
        _log(f"B: {team_s:.0f} s, {remote.remote_hits}/{remote.calls} remote hits")
    finally:
        redis.stop()

    upstream_jobs = 2 * cpus
    u = _workspace(root, scale, "U", Jobs(upstream_jobs, upstream_jobs, "upstream's MAX_JOBS"))
    cap = 2 * BUDGET + 2 * GIB  # protects the machine's other work; not a budget
    upstream = run_measured(tritondev_argv(*u.args), env=u.env, cwd=REPO, limit=cap, method=method)
    _log(f"U cold: {upstream.seconds:.0f} s, peak {_gib(upstream.peak)}, exit {upstream.returncode}")

    return [
        *noop,
        *_cache_rows(size, cold_s, rebuild_s, (hits, calls)),
        *_memory_rows(size, heavy, method, sized, budgeted, upstream, upstream_jobs, cap),
        *_team_rows(size, remote, cold_s, team_s),
    ]


def _cache_rows(size: str, cold_s: float, rebuild_s: float, counts: tuple[int, int]) -> list[dict[str, object]]:
    hits, calls = counts
    build_speedup = cold_s / rebuild_s if rebuild_s else 0.0
    rate = hits / calls if calls else 0.0
    return [
        {
            "metric": f"{size}: rebuild after deleting build folders, ccache hit rate",
            "measured": f"{rate:.1%} ({hits}/{calls})",
            "goal": ">= 95%",
            "pass": rate >= 0.95,
        },
        {
            "metric": f"{size}: rebuild (warm ccache) vs cold build, speed-up of the build steps",
            "measured": f"{build_speedup:.1f}x ({cold_s:.1f} s -> {rebuild_s:.1f} s)",
            "goal": ">= 3x",
            "pass": build_speedup >= 3,
        },
    ]


def _team_rows(size: str, remote: CcacheDelta, cold_s: float, team_s: float) -> list[dict[str, object]]:
    team_ratio = cold_s / team_s if team_s else 0.0
    return [
        {
            "metric": f"{size}: team cache, B's compilations answered by the remote (A cold, B empty local cache)",
            "measured": f"{remote.remote_rate:.1%} ({remote.remote_hits}/{remote.calls}, {remote.local_hits} local, "
            f"{remote.misses} misses)",
            "goal": ">= 90%",
            "pass": remote.remote_rate >= 0.90,
        },
        {
            "metric": f"{size}: team cache, A/B time of the build steps",
            "measured": f"{team_ratio:.1f}x ({cold_s:.1f} s / {team_s:.1f} s)",
            "goal": ">= 3x",
            "pass": team_ratio >= 3,
        },
    ]


def run() -> list[dict[str, object]]:
    """The rows; the files (about 300,000) stay under the temporary folder, which tests/perf/run.py
    removes once every benchmark is measured (on a disk mounted with `discard` that takes minutes)."""
    return measure(Path(tempfile.mkdtemp(prefix="tritondev-bench-scale-")))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="tritondev-bench-scale-run-") as scratch:
        os.environ["TMPDIR"] = scratch
        tempfile.tempdir = None
        for row in run():
            print(row)
