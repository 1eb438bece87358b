"""Run every benchmark and print one table: metric, measured, goal, pass.

    python tests/perf/run.py                 # all benchmarks, one after the other, in one process
    python tests/perf/run.py startup scale   # only modules whose name contains "startup" or "scale"
    python tests/perf/run.py --order random  # any order gives the same figures (the seed is printed)
    python tests/perf/run.py --json          # rows as JSON
    python tests/perf/run.py --markdown      # rows as the README's Markdown table

The contract of a benchmark: a module tests/perf/bench_<name>.py (found by its name, nothing to
register) with `run() -> list[dict]`, each row {"metric", "measured", "goal", "pass"}; "pass" is
True, False, or None for a row that cannot be measured on this machine (a GPU row without a GPU),
which prints "skip" with its reason in "measured" and fails nothing. Figures are ratios or medians
measured in one run, so a noisy machine moves both sides.

Each benchmark runs in its own world, so none sees what another left behind: a private HOME,
XDG cache/config/data folders, ccache folder and TMPDIR (so no cache, LLVM build registry or
kernel cache is shared), and afterwards the environment, the working directory, sys.path and the
modules it imported are put back as they were (module-level caches and registries start again
with the next one). A benchmark may leave its scratch files under its TMPDIR: the harness removes
them once the table is printed. A benchmark that raises prints one line in its row and its
traceback below the table; the others still run. Exit status: 0 when every row passes or is
skipped, 1 otherwise.

bench_scale builds a generated LLVM-sized tree (tests/perf/scale) three times and takes most of the
run; the end of the run prints the time each benchmark and the whole run took.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

Row = dict[str, object]
WIDTH = 120  # the table fits a terminal this wide
HEADERS = ("metric", "measured", "goal", "pass")
# Where each benchmark's private folders go (variable -> folder under its root).
PRIVATE_FOLDERS = {
    "HOME": "home",
    "XDG_CACHE_HOME": "xdg-cache",
    "XDG_CONFIG_HOME": "xdg-config",
    "XDG_DATA_HOME": "xdg-data",
    "CCACHE_DIR": "ccache",
    "TMPDIR": "tmp",
}
# Variables of the caller that would steer a benchmark's tools: never passed into one.
DROPPED_PREFIXES = ("TRITONDEV_", "TRITON_", "CCACHE_", "MINI_WORLD_")
# Modules a benchmark may import and that are dropped after it, so the next imports them afresh.
OWN_PACKAGES = ("tests", "bootstrap")
SUMMARY_CHARS = 160  # a failed benchmark's row: its exception, cut to this


@dataclass
class Result:
    name: str
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None  # the traceback of a benchmark that raised
    summary: str = ""  # ... and its exception in one line

    def table_rows(self) -> list[Row]:
        if self.error is None:
            return self.rows
        return [
            {
                "metric": f"{self.name}: failed to run (traceback below the table)",
                "measured": self.summary,
                "goal": "-",
                "pass": False,
                "benchmark": self.name,
            }
        ]


def discover(filters: list[str], folder: Path | None = None) -> list[str]:
    """Module names of the benchmarks in `folder` (default HERE, read when called), those matching a
    filter if any."""
    names = sorted(p.stem for p in (folder or HERE).glob("bench_*.py"))
    if filters:
        names = [n for n in names if any(f in n for f in filters)]
    return names


@contextmanager
def own_world(name: str, leftovers: list[Path] | None = None) -> Iterator[Path]:
    """Private folders for one benchmark; everything it changed in this process is put back after.

    Its folder is removed at once, or, given `leftovers`, added to it for removal after the whole
    run: on a file system mounted with `discard` removing a million files takes many minutes, which
    must neither count in nor slow down the next benchmark's figures."""
    environ, cwd, path, tempdir = dict(os.environ), os.getcwd(), list(sys.path), tempfile.tempdir
    modules = set(sys.modules)
    root = Path(tempfile.mkdtemp(prefix=f"tritondev-bench-{name}-"))
    try:
        for variable in [v for v in os.environ if v.startswith(DROPPED_PREFIXES)]:
            del os.environ[variable]
        for variable, sub in PRIVATE_FOLDERS.items():
            (root / sub).mkdir()
            os.environ[variable] = str(root / sub)
        tempfile.tempdir = None  # re-read from TMPDIR
        yield root
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        tempfile.tempdir = tempdir
        for module in set(sys.modules) - modules:
            if module.split(".")[0] in OWN_PACKAGES:
                del sys.modules[module]
        if leftovers is None:
            shutil.rmtree(root, ignore_errors=True)
        else:
            leftovers.append(root)


def remove_in_background(folders: list[Path]) -> None:
    """Remove the benchmarks' folders once every figure is taken, without keeping the caller waiting."""
    if folders:
        # A shell that starts rm in the background and exits at once: nothing of ours is left running
        # (a Popen object dropped while its process runs is a ResourceWarning).
        subprocess.run(
            ["sh", "-c", 'rm -rf -- "$@" >/dev/null 2>&1 &', "sh", *map(str, folders)],
            check=True,
            start_new_session=True,
        )
        print(f"removing the benchmarks' files in the background: {' '.join(map(str, folders))}", file=sys.stderr)


def run_isolated(name: str, produce: Callable[[], list[Row]], leftovers: list[Path] | None = None) -> Result:
    """Run one benchmark in its own world; an exception becomes the result's error, never the run's."""
    started = time.monotonic()
    result = Result(name)
    with own_world(name, leftovers):
        try:
            rows = produce()
            result.rows = [checked_row(row, name) for row in rows]
        except Exception as exc:
            result.error = traceback.format_exc()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            result.summary = f"{type(exc).__name__}: {first}"[:SUMMARY_CHARS].rstrip(": ")
        result.seconds = time.monotonic() - started
    return result


def checked_row(row: object, name: str) -> Row:
    if not isinstance(row, dict) or not {"metric", "measured", "goal", "pass"} <= set(row):
        raise TypeError(f"{name} returned a row without metric, measured, goal and pass: {row!r}")
    if row["pass"] not in (True, False, None):
        raise TypeError(f"{name}: 'pass' must be True, False or None, not {row['pass']!r}")
    return {**row, "benchmark": name}


def load_and_run(name: str) -> list[Row]:
    module = importlib.import_module(f"tests.perf.{name}")
    rows: list[Row] = module.run()
    return rows


def verdict(value: object) -> str:
    return "skip" if value is None else ("yes" if value else "NO")


def column_widths(cells: list[list[str]], width: int = WIDTH) -> list[int]:
    """Each column as wide as its longest cell, while the four fit `width`; metric and measured give
    way first (their text wraps)."""
    natural = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(HEADERS)]
    goal, verdict_w = min(natural[2], 22), natural[3]
    room = width - 2 * (len(HEADERS) - 1) - goal - verdict_w
    measured = min(natural[1], max(24, room * 2 // 5))
    metric = min(natural[0], room - measured)
    measured = min(natural[1], room - metric)
    return [metric, measured, goal, verdict_w]


def format_table(rows: list[Row], width: int = WIDTH) -> list[str]:
    cells = [[str(r["metric"]), str(r["measured"]), str(r["goal"]), verdict(r["pass"])] for r in rows]
    widths = column_widths(cells, width)
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(HEADERS, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    for row in cells:
        wrapped = [textwrap.wrap(text, w, break_on_hyphens=False) or [""] for text, w in zip(row, widths, strict=True)]
        for i in range(max(len(w) for w in wrapped)):
            parts = [(w[i] if i < len(w) else "").ljust(width_) for w, width_ in zip(wrapped, widths, strict=True)]
            lines.append("  ".join(parts).rstrip())
    return lines


def order_of(names: list[str], order: str, seed: int | None) -> tuple[list[str], int | None]:
    if order != "random":
        return names, None
    seed = seed if seed is not None else random.SystemRandom().randrange(1 << 32)
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    return shuffled, seed


def markdown_table(rows: list[Row]) -> list[str]:
    """The rows as the README's table: one line each, `|` in a cell escaped."""

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for r in rows:
        cells = [cell(r["metric"]), cell(r["measured"]), cell(r["goal"]), verdict(r["pass"])]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def report(results: list[Result], total: float, as_json: bool, as_markdown: bool = False) -> None:
    rows = [row for result in results for row in result.table_rows()]
    if as_json:
        failures = {r.name: r.error for r in results if r.error}
        print(
            json.dumps(
                {
                    "rows": rows,
                    "failures": failures,
                    "seconds": {r.name: round(r.seconds, 1) for r in results},
                    "total_seconds": round(total, 1),
                },
                indent=2,
                default=str,
            )
        )
        return
    print("\n".join(markdown_table(rows) if as_markdown else format_table(rows)))
    timings = ", ".join(f"{r.name} {r.seconds / 60:.1f}" for r in results)
    print(f"\nwhole run: {total / 60:.1f} min ({timings}; minutes)")
    for result in results:
        if result.error:
            print(f"\n{result.name} failed:\n{result.error.rstrip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("filters", nargs="*", help="run only benchmarks whose module name contains one of these")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the rows as JSON")
    output.add_argument("--markdown", action="store_true", help="print the table in Markdown (the README's)")
    parser.add_argument("--order", choices=("name", "random"), default="name", help="the order to run them in")
    parser.add_argument("--seed", type=int, help="the seed of --order random (printed when not given)")
    args = parser.parse_args(argv)

    names, seed = order_of(discover(args.filters), args.order, args.seed)
    if seed is not None:
        print(f"order: random, --seed {seed}: {' '.join(names)}", file=sys.stderr, flush=True)
    started = time.monotonic()
    results: list[Result] = []
    leftovers: list[Path] = []
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        result = run_isolated(name, functools.partial(load_and_run, name), leftovers)
        print(f"  {name} took {result.seconds:.1f}s{' (failed)' if result.error else ''}", file=sys.stderr, flush=True)
        results.append(result)
    report(results, time.monotonic() - started, args.json, args.markdown)
    remove_in_background(leftovers)
    return exit_status(results)


def exit_status(results: list[Result]) -> int:
    """0 when there are rows and none failed (a skipped row fails nothing), else 1."""
    rows = [row for result in results for row in result.table_rows()]
    return 0 if rows and all(row["pass"] is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
