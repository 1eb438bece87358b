"""The launcher's first run: `./shell/tritondev --help` where its private venv does not exist yet.

What the first run does: `python -m venv --without-pip`, then the bootstrap interpreter's pip installs
tritondev's dependencies into it (`--no-compile`), and tritondev itself goes in as an editable install
does (a .pth naming the checkout and the console script). Timed with pip's cache warm (one first run
into another folder before), as a user's second machine or a rebuilt venv has it; beside it, for scale,
what the launcher did before with the same cache: `python -m venv` (which puts pip into the venv) and
`pip install -e <checkout>` (an isolated build of tritondev with setuptools).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run as a file too
    sys.path.insert(0, str(REPO))

from tests.support.environ import child_environ  # noqa: E402

LAUNCHER = REPO / "shell" / "tritondev"
GOAL_SECONDS = 10.0


def _env(venv: Path) -> dict[str, str]:
    env = child_environ()
    env["TRITONDEV_TOOL_VENV"] = str(venv)
    return env


def _first_run(venv: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run([str(LAUNCHER), "--help"], env=_env(venv), capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - started
    if proc.returncode != 0 or "preparing its own environment" not in proc.stderr:
        raise RuntimeError(f"the launcher's first run exited {proc.returncode}: {proc.stderr[-1500:]}")
    return seconds


def _the_way_before(folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True, timeout=900)
    subprocess.run(
        [str(folder / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-e", str(REPO)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    return time.perf_counter() - started


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory(prefix="bench-launcher-") as tmp:
        scratch = Path(tmp)
        _first_run(scratch / "warm-the-cache")
        first = _first_run(scratch / "venv")
        before = _the_way_before(scratch / "before")
    load = os.getloadavg()[0]
    return [
        {
            "metric": "launcher's first run (`./shell/tritondev --help`, no venv yet, pip cache warm), wall time",
            "measured": f"{first:.1f} s (load average {load:.1f})",
            "goal": f"<= {GOAL_SECONDS:g} s",
            "pass": first <= GOAL_SECONDS,
        },
        {
            "metric": "  the way before: `python -m venv` + `pip install -e .`, same cache",
            "measured": f"{before:.1f} s ({before / first:.1f}x the first run)",
            "goal": "-",
            "pass": True,
        },
    ]
