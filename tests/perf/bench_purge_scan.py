"""purge's scan of a large environment: `tritondev purge --dry-run` where the distributions list as many
files as an environment with torch and CUDA's wheels does.

The scan reads every RECORD of the target (what provides triton/, what a RECORD pip would follow
would delete beyond Triton's files, which .pth files no distribution installed), and setup's purge
step runs the same scan. torch 2.11's RECORD alone lists about 17,000 files and the nvidia-* wheels
as many again, so the row's environment lists 52,100: 50 generated distributions of 1,000 files each
(and a console script) and a triton wheel of 2,000 files. The venv is real (pip in it), so the row
includes what a purge also starts: the target's probe, `pip list` and the import check.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # run as a file: the tests' helpers are imported from the checkout

from tests.integration.purge.conftest import site_packages  # noqa: E402
from tests.support.cli import tritondev_argv  # noqa: E402
from tests.support.environ import child_environ  # noqa: E402
from tests.support.venvs import fresh_venv  # noqa: E402

DISTRIBUTIONS = 50
FILES_EACH = 1000
TRITON_FILES = 2000
GOAL_SECONDS = 1.0
RUNS = int(os.environ.get("BENCH_PURGE_SCAN_RUNS", "5"))


def _distribution(sp: Path, name: str, version: str, record: list[str], package_files: Sequence[str] = ()) -> None:
    meta = sp / f"{name}-{version}.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (meta / "INSTALLER").write_text("pip\n")
    rows = [*record, f"{meta.name}/METADATA,,", f"{meta.name}/INSTALLER,,", f"{meta.name}/RECORD,,"]
    (meta / "RECORD").write_text("".join(f"{r},,\n" for r in rows))
    for rel in package_files:
        path = sp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def large_environment(root: Path) -> tuple[Path, int]:
    """A real venv whose distributions list 52,100 files; its python and how many files they list."""
    python = fresh_venv(root / "venv")
    sp = site_packages(python)
    listed = 0
    for i in range(DISTRIBUTIONS):
        name = f"bigdist{i}"
        record = [f"{name}/part{j // 50}/module{j}.py" for j in range(FILES_EACH - 1)]
        record.append(f"../../../bin/{name}-cli")
        _distribution(sp, name, "1.0", record)
        listed += len(record) + 3
    triton = [f"triton/part{j // 100}/file{j}.py" for j in range(TRITON_FILES)]
    _distribution(sp, "triton", "3.6.0", triton, triton)
    return python, listed + len(triton) + 3


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory(prefix="bench-purge-scan-") as scratch:
        root = Path(scratch)
        python, listed = large_environment(root)
        env = child_environ()
        argv = tritondev_argv("--python", str(python), "--workspace", str(root / "ws"), "--json", "--dry-run", "purge")
        times: list[float] = []
        report: dict[str, object] = {}
        for _ in range(RUNS + 1):  # the first, untimed: bytecode and page cache
            started = time.perf_counter()
            proc = subprocess.run(argv, env=env, cwd=root, capture_output=True, text=True, timeout=600)
            times.append(time.perf_counter() - started)
            if proc.returncode != 0:
                raise RuntimeError(f"purge --dry-run exited {proc.returncode}: {proc.stderr[-1500:]}")
            report = json.loads(proc.stdout)
        owners = [o["name"] for o in report["scan"]["owners"]]  # type: ignore[index]
        if owners != ["triton"]:
            raise RuntimeError(f"the scan found {owners}, not the one triton")
        median = statistics.median(times[1:])
        pip_list = [str(python), "-m", "pip", "list", "-v", "--format=json"]  # what the scan asks pip
        pip_times = []
        for _ in range(RUNS):
            started = time.perf_counter()
            subprocess.run(pip_list, env=env, cwd=root, capture_output=True, check=True, timeout=600)
            pip_times.append(time.perf_counter() - started)
        pip_median = statistics.median(pip_times)
    return [
        {
            "metric": f"purge --dry-run of an environment whose {DISTRIBUTIONS + 1} distributions list {listed:,} files"
            f" (torch's and CUDA's size), median wall time of {RUNS}",
            "measured": f"{median:.2f} s (found the one triton, {TRITON_FILES:,} files)",
            "goal": f"<= {GOAL_SECONDS} s",
            "pass": median <= GOAL_SECONDS,
        },
        {
            "metric": "  of which the one process that cannot be skipped: the target's `pip list -v`"
            " of that environment, median",
            "measured": f"{pip_median:.2f} s",
            "goal": "- (reference)",
            "pass": True,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
