"""Run every benchmark and print one table: metric, measured, goal, pass.

    python tests/perf/run.py            # all benchmarks
    python tests/perf/run.py startup    # only modules whose name contains "startup"
    python tests/perf/run.py --json     # rows as JSON

Each tests/perf/bench_*.py exposes `run() -> list[dict]` with rows {"metric", "measured", "goal",
"pass"}. Figures are ratios or medians measured in one run, so a noisy machine moves both sides.
Exit status: 0 when every row passes, 1 otherwise.

bench_scale builds a generated LLVM-sized tree (tests/perf/scale) three times and takes most of the
run: 17 minutes at the default 3,300 units (3,457 compile targets), 11 at BENCH_SCALE_UNITS=2550
(2,690) and 7 at 600 (715), on 2 cores shared with a test-suite run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))


def discover(filters: list[str]) -> list[str]:
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if filters:
        names = [n for n in names if any(f in n for f in filters)]
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("filters", nargs="*", help="run only benchmarks whose module name contains one of these")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)

    rows: list[dict[str, object]] = []
    for name in discover(args.filters):
        started = time.monotonic()
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            module = importlib.import_module(f"tests.perf.{name}")
            produced = module.run()
        except Exception as exc:
            traceback.print_exc()
            produced = [{"metric": f"{name}: failed to run", "measured": f"{type(exc).__name__}: {exc}",
                         "goal": "-", "pass": False}]
        for row in produced:
            row.setdefault("benchmark", name)
        rows.extend(produced)
        print(f"  {name} took {time.monotonic() - started:.1f}s", file=sys.stderr, flush=True)

    if args.json:
        print(json.dumps(rows, indent=2, default=str))
    else:
        print_table(rows)
    return 0 if rows and all(bool(r["pass"]) for r in rows) else 1


def print_table(rows: list[dict[str, object]]) -> None:
    headers = ("metric", "measured", "goal", "pass")
    cells = [[str(r["metric"]), str(r["measured"]), str(r["goal"]), "yes" if r["pass"] else "NO"] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("  ".join("-" * w for w in widths))
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)))


if __name__ == "__main__":
    sys.exit(main())
