"""`tritondev ir view` on the largest dump of the test suite: a matmul compiled by the real Triton 3.9 for
cuda:90 and dumped with `tritondev run --dump-ir` and line info on (82 dumps, 79 MLIR passes, about
11 MiB of IR; tests/integration/ir_tools/views.py makes it, no GPU needed).

Measured: the page's size against the dump's, the wall time of `tritondev ir view`, and the time to the
page's first render in a real headless Chromium opening it from a file URL with the network off:
`performance.now()` when the page has drawn its timeline, the selected pass and the source (its
`window.irview.renderMs`), counted from the start of the navigation; median of 5 loads.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # run as a file: the tests' helpers are imported from the checkout

from tests.support.cli import tritondev_argv  # noqa: E402

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.integration.ir_tools.views import make_matmul  # noqa: E402
from tests.support.browser import Browser, chromium  # noqa: E402

PAGE_GOAL = 1 << 20  # bytes
RENDER_GOAL = 1.0  # seconds
LOADS = 5


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file() and p.suffix != ".html")


def run() -> list[dict[str, object]]:
    root = Path(tempfile.mkdtemp(prefix="bench-ir-view-"))
    matmul = make_matmul(root)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        proc = subprocess.run(
            tritondev_argv("ir", "view", str(matmul.dump), "--json"),
            env=matmul.env,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=REPO,
        )
        times.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise RuntimeError(f"ir view exited {proc.returncode}: {proc.stderr[-1500:]}")
    data = json.loads(proc.stdout)
    (kernel,) = data["dumps"][0]["kernels"]
    page, size, dumped = Path(data["path"]), int(data["bytes"]), _folder_bytes(matmul.dump)
    what = f"{kernel['dumps']} dumps, {kernel['passes']} passes"
    rows: list[dict[str, object]] = [
        {
            "metric": f"ir view page of the matmul dump ({what}, line info): size vs the dump folder",
            "measured": f"{size / 1024:.0f} KiB vs {dumped / (1 << 20):.1f} MiB ({100 * size / dumped:.1f}%)",
            "goal": f"<= {PAGE_GOAL >> 20} MiB",
            "pass": size <= PAGE_GOAL,
        },
        {
            "metric": "  `tritondev ir view` of that dump, median wall time of 3",
            "measured": f"{statistics.median(times):.2f} s",
            "goal": "-",
            "pass": True,
        },
    ]
    if chromium() is None:
        rows.append(
            {
                "metric": "ir view page: time to first render in headless Chromium",
                "measured": "skipped: no chromium on PATH",
                "goal": f"< {RENDER_GOAL} s",
                "pass": None,
            }
        )
        return rows
    renders = []
    with Browser() as browser:
        for _ in range(LOADS):
            opened = browser.open(page)
            if opened.errors():
                raise RuntimeError(f"the page reported errors: {opened.errors()}")
            renders.append(float(browser.evaluate("window.irview.renderMs")) / 1000)
    median = statistics.median(renders)
    rows.append(
        {
            "metric": f"ir view page of that dump: time to first render in headless Chromium, file URL, "
            f"network off, median of {LOADS}",
            "measured": f"{median:.2f} s (min {min(renders):.2f}, max {max(renders):.2f})",
            "goal": f"< {RENDER_GOAL} s",
            "pass": median < RENDER_GOAL,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
