"""The scale benchmark's no-op rows: `tritondev setup` with nothing to do against the hand recipe,
on the same workspace, with the page cache warm and cold.

Warm: the re-run a developer does minutes after the last one. Cold: after `echo 3 >
/proc/sys/vm/drop_caches` (root only; elsewhere the cold rows say why they could not be measured),
the first re-run of the day: every file and folder the no-op looks at comes from disk again.
Each row names the tree: the LLVM and Triton checkouts' files and folders and the LLVM build's
ninja state (.ninja_log entries, .ninja_deps size), what a no-op and the hand recipe walk.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.perf.scale.world import Tree
from tests.perf.setup_runs import HAND_STEPS, hand_recipe, noop_median
from tests.support.cli import tritondev_argv

WARM_NOOPS, COLD_NOOPS, WARM_HANDS, COLD_HANDS = 5, 3, 3, 2
GOAL_SECONDS, GOAL_SPEEDUP = 1.0, 20.0
DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def drop_page_cache() -> str | None:
    """Empty the kernel's page, dentry and inode caches; None when done, else why it could not be."""
    os.sync()
    try:
        DROP_CACHES.write_text("3\n")
    except OSError as exc:
        return f"cannot write {DROP_CACHES} ({exc.strerror or exc}): root on a kernel that allows it is needed"
    return None


def ninja_state(build: Path) -> str:
    """What ninja reads at every no-op of this build folder: its log and its dependency database."""
    log = build / ".ninja_log"
    targets = {line.split("\t")[3] for line in log.read_text().splitlines()[1:] if line.count("\t") >= 4}
    deps = (build / ".ninja_deps").stat().st_size / 2**20
    return f"{len(targets):,} targets in .ninja_log, .ninja_deps {deps:.1f} MiB"


@dataclass(frozen=True)
class NoopFigures:
    noop: float
    hand: float
    hand_steps: dict[str, float]

    @property
    def speedup(self) -> float:
        return self.hand / self.noop

    def steps(self) -> str:
        return ", ".join(f"{k.removeprefix('triton-')} {v:.2f} s" for k, v in self.hand_steps.items())


def _figures(
    args: list[str], env: dict[str, str], ws: Path, noops: int, hands: int, before: Callable[[], object] | None
) -> NoopFigures:
    noop = noop_median(args, env, noops, before=before)
    hand, steps = hand_recipe(ws, env, hands, before=before)
    return NoopFigures(noop, hand, steps)


def describe_tree(llvm: Tree, triton: Tree, llvm_build: Path, targets: int) -> str:
    return (
        f"llvm-project checkout {llvm.describe()}, Triton checkout {triton.describe()}; LLVM build: "
        f"{ninja_state(llvm_build)}; {targets:,} compile targets (LLVM and Triton)"
    )


def _median_seconds(argv: list[str], env: dict[str, str], runs: int = WARM_NOOPS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def floor_row(size: str, env: dict[str, str], ws: Path) -> dict[str, object]:
    """What any no-op pays here whatever it does: git's lstat of every tracked llvm-project file (the
    least a check for local changes does without a file-system monitor), and starting tritondev."""
    lstat = _median_seconds(
        [
            "git",
            "--no-optional-locks",
            "-C",
            str(ws / "src" / "llvm-project"),
            "status",
            "--porcelain",
            "--untracked-files=no",
        ],
        env,
    )
    start = _median_seconds(tritondev_argv("--help"), env)
    return {
        "metric": f"{size}:   what a no-op cannot skip, warm, medians of {WARM_NOOPS}",
        "measured": f"{lstat:.2f} s: git's lstat of every tracked llvm-project file (git status "
        f"--untracked-files=no); {start:.2f} s: starting tritondev (python -m bootstrap --help)",
        "goal": "- (reference)",
        "pass": True,
    }


def noop_rows(size: str, tree: str, args: list[str], env: dict[str, str], ws: Path) -> list[dict[str, object]]:
    started = time.monotonic()
    warm = _figures(args, env, ws, WARM_NOOPS, WARM_HANDS, None)
    floor = floor_row(size, env, ws)
    why_not = drop_page_cache()
    cold = _figures(args, env, ws, COLD_NOOPS, COLD_HANDS, drop_page_cache) if why_not is None else None
    print(f"  scale: no-op rows took {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    rows: list[dict[str, object]] = [
        {"metric": f"{size}: the tree a no-op walks", "measured": tree, "goal": "-", "pass": True},
        {
            "metric": f"{size}: setup no-op re-run, warm page cache, median of {WARM_NOOPS}",
            "measured": f"{warm.noop:.2f} s",
            "goal": f"<= {GOAL_SECONDS:.0f} s",
            "pass": warm.noop <= GOAL_SECONDS,
        },
        {
            "metric": f"{size}:   hand recipe via shell functions ({', '.join(HAND_STEPS)}), warm, median of "
            f"{WARM_HANDS}",
            "measured": f"{warm.hand:.2f} s ({warm.steps()})",
            "goal": "-",
            "pass": True,
        },
        {
            "metric": f"{size}: setup no-op re-run vs the hand recipe, warm page cache, speed-up",
            "measured": f"{warm.speedup:.1f}x ({warm.noop:.2f} s vs {warm.hand:.2f} s)",
            "goal": f">= {GOAL_SPEEDUP:.0f}x",
            "pass": warm.speedup >= GOAL_SPEEDUP,
        },
        floor,
    ]
    cold_metric = (
        f"{size}: cold page cache (dropped before each run): setup no-op, median of {COLD_NOOPS}, "
        f"vs the hand recipe, median of {COLD_HANDS}"
    )
    if cold is None:
        rows.append({"metric": cold_metric, "measured": f"not measured: {why_not}", "goal": "-", "pass": None})
    else:
        rows.append(
            {
                "metric": cold_metric,
                "measured": f"{cold.speedup:.1f}x ({cold.noop:.2f} s vs {cold.hand:.2f} s; {cold.steps()})",
                "goal": "- (reference)",
                "pass": True,
            }
        )
    return rows
