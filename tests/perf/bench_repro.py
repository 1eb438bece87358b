"""Benchmark: what `tritondev repro capture` costs, same command with and without it (no --save-io).

Each side is the real CLI: `tritondev run -- python PROGRAM` against `tritondev repro capture -- python
PROGRAM`, so both pay for tritondev's start-up and the program's imports; what differs is the capture hook
(a sitecustomize, Triton's launch hooks, one record per distinct launch). Runs alternate after one warm-up
of each (Triton's and Inductor's caches filled for both), and the medians of REPETITIONS are compared.

- interpreter row (no GPU needed): the real Triton 3.9 wheel, TRITON_INTERPRET=1, a program launching two
  kernels 200 times;
- GPU row (where the target's torch sees a GPU, else skipped): the pointwise+reduction function of
  docs/repro.md compiled by torch.compile and called 2000 times; the program also reports its own
  loop's time per call, so the per-launch cost of the hook is shown beside the wall time.

    python tests/perf/bench_repro.py
    BENCH_REPRO_GPU_PYTHON=/path/to/python python tests/perf/bench_repro.py   # the GPU row with that Python
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.cli import tritondev_argv
from tests.support.environ import child_environ
from tests.support.venvs import REPO, triton_venv

REPETITIONS = 3  # interleaved, after one warm-up each: a loaded machine moves single runs by 2x
GOAL = 1.2

INTERPRETED = r"""
import time, torch, triton, triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 0.5, mask=offs < n)

x, y = torch.rand(4096), torch.rand(4096)
out = torch.empty_like(x)
started = time.perf_counter()
for _ in range(100):
    add_kernel[(4,)](x, y, out, 4096, BLOCK=1024)
    scale_kernel[(4,)](out, 4096, BLOCK=1024)
print("per-call-us", (time.perf_counter() - started) / 200 * 1e6)
"""

COMPILED = r"""
import time, torch
f = torch.compile(lambda x, y: torch.relu(x * y + 1.0).sum(dim=-1))
x = torch.randn(256, 16, device="cuda")
y = torch.randn(256, 16, device="cuda")
f(x, y)
torch.cuda.synchronize()
started = time.perf_counter()
for _ in range(2000):
    f(x, y)
torch.cuda.synchronize()
print("per-call-us", (time.perf_counter() - started) / 2000 * 1e6)
"""


def _env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    env = child_environ("TORCHINDUCTOR_")
    python_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env.update(
        HOME=str(home),
        PYTHONPATH=python_path,
        TRITONDEV_WORKSPACE=str(home / "ws"),
        TRITON_CACHE_DIR=str(home / "triton-cache"),
        TORCHINDUCTOR_CACHE_DIR=str(home / "inductor-cache"),
        **extra,
    )
    return env


def _once(words: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.run(tritondev_argv(*words), capture_output=True, text=True, env=env, cwd=cwd, timeout=1200)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(words[:3])} exited {proc.returncode}: {proc.stderr[-1500:]}")
    per_call = [float(line.split()[1]) for line in proc.stdout.splitlines() if line.startswith("per-call-us")]
    return seconds, per_call[-1] if per_call else float("nan")


def measure(python: Path, program_text: str, extra: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-repro-") as tmp:
        home = Path(tmp)
        program = home / "program.py"
        program.write_text(program_text)
        env = _env(home, extra)
        plain = ["run", "--python", str(python), "--", str(python), str(program)]
        captured = ["repro", "capture", "--python", str(python), "--", str(python), str(program)]
        _once(plain, env, home)
        _once(captured, env, home)
        runs: dict[str, list[tuple[float, float]]] = {"plain": [], "capture": []}
        for _ in range(REPETITIONS):
            runs["plain"].append(_once(plain, env, home))
            runs["capture"].append(_once(captured, env, home))
    return {
        f"{side}_{what}": statistics.median(r[i] for r in runs[side])
        for side in runs
        for i, what in enumerate(("s", "us"))
    }


def _row(label: str, figures: dict[str, float]) -> dict[str, object]:
    ratio = figures["capture_s"] / figures["plain_s"]
    return {
        "metric": f"repro capture / tritondev run, same command, wall time: {label} (median of {REPETITIONS})",
        "measured": f"{ratio:.2f}x ({figures['capture_s']:.2f} s vs {figures['plain_s']:.2f} s; per launch "
        f"{figures['capture_us']:.1f} vs {figures['plain_us']:.1f} us)",
        "goal": f"<= {GOAL}x",
        "pass": ratio <= GOAL,
    }


def _gpu_python() -> Path | None:
    python = Path(os.environ.get("BENCH_REPRO_GPU_PYTHON") or sys.executable)
    probe = subprocess.run(
        [str(python), "-c", "import torch; print(torch.cuda.is_available())"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return python if probe.stdout.strip() == "True" else None


def run() -> list[dict[str, object]]:
    rows = [
        _row(
            "2 kernels x 100 launches under TRITON_INTERPRET=1 (Triton 3.9 wheel)",
            measure(triton_venv(), INTERPRETED, {"TRITON_INTERPRET": "1"}),
        )
    ]
    python = _gpu_python()
    if python is None:
        rows.append(
            {
                "metric": "repro capture / tritondev run, torch.compile'd function x 2000 calls on the GPU",
                "measured": "skipped: the target's torch sees no GPU",
                "goal": f"<= {GOAL}x",
                "pass": None,
            }
        )
    else:
        rows.append(_row("torch.compile'd pointwise+reduction x 2000 calls on the GPU", measure(python, COMPILED, {})))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
