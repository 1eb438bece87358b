"""Benchmark: `tritondev compile` for four targets against a plain loop of `triton.compile`.

Both sides run in the same real venv (triton 3.9.0 from the package index) as fresh processes, so
both pay for starting Python and importing Triton; each repetition gets an empty Triton cache, so
both really compile. tritondev also writes every stage, disassembles three cubins with nvdisasm and
reads their resource usage; the loop only compiles. The kernel is a 128x128x64 fp16 matmul with 8
warps, the kind of kernel people cross-compile. Repetitions are interleaved; medians are compared.

    python tests/perf/bench_compile.py        # prints the rows
    BENCH_COMPILE_PYTHON=/path/to/python python tests/perf/bench_compile.py   # another env with triton >= 3.3
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

from tests.integration.kernels.kernels_src import KERNELS, MATMUL_SIGNATURE
from tests.support.cli import tritondev_argv
from tests.support.environ import child_environ
from tests.support.venvs import REPO, triton_venv

TARGETS = ("cuda:80", "cuda:90", "cuda:120", "hip:gfx942")
CONSTEXPRS = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
NUM_WARPS = 8
REPETITIONS = 5
GOAL = 1.2  # tritondev compile may cost at most 1.2x the plain loop

# The plain loop: what a developer would write by hand with Triton's API.
LOOP = r"""
import importlib.util, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

spec = importlib.util.spec_from_file_location("my_kernels", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = module.matmul_kernel
signature = dict(item.split("=") for item in sys.argv[2].split(","))
signature = {name: ty.split(":")[0] for name, ty in signature.items()}
constexprs = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
signature.update({name: "constexpr" for name in constexprs})
hints = {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n in ("a_ptr", "b_ptr", "c_ptr")}
for target in sys.argv[3:]:
    backend, arch = target.split(":")
    gpu = GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32 if backend == "cuda" else 64)
    src = ASTSource(fn, signature=signature, constexprs=constexprs, attrs=hints)
    triton.compile(src, target=gpu, options={"num_warps": 8})
"""


def _env(cache: Path) -> dict[str, str]:
    env = child_environ()
    env.update(TRITON_CACHE_DIR=str(cache), PYTHONPATH=str(REPO), TRITONDEV_WORKSPACE=str(cache / "ws"))
    return env


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed


def run() -> list[dict[str, object]]:
    python = Path(os.environ["BENCH_COMPILE_PYTHON"]) if os.environ.get("BENCH_COMPILE_PYTHON") else triton_venv()
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        root = Path(tmp)
        source = root / "my_kernels.py"
        source.write_text(KERNELS)
        loop_argv = [str(python), "-c", LOOP, str(source), MATMUL_SIGNATURE, *TARGETS]
        tool_argv = tritondev_argv("compile", f"{source}::matmul_kernel", "--python", str(python),
                     "--signature", MATMUL_SIGNATURE, "--num-warps", str(NUM_WARPS))  # fmt: skip
        for name, value in CONSTEXPRS.items():
            tool_argv += ["--constexpr", f"{name}={value}"]
        for target in TARGETS:
            tool_argv += ["--target", target]
        # One untimed round of each: the first start-up of a venv reads its files from disk.
        _timed(loop_argv, _env(root / "warm-loop"))
        _timed([*tool_argv, "--out", str(root / "warm-out")], _env(root / "warm-tool"))
        loop_s: list[float] = []
        tool_s: list[float] = []
        for i in range(REPETITIONS):
            loop_s.append(_timed(loop_argv, _env(root / f"loop-{i}")))
            tool_s.append(_timed([*tool_argv, "--out", str(root / f"out-{i}")], _env(root / f"tool-{i}")))
            for stage in ("ttir", "ttgir", "llir", "ptx", "cubin", "sass"):
                assert (root / f"out-{i}" / "cuda-90" / f"matmul_kernel.{stage}").stat().st_size > 0
    loop_median = statistics.median(loop_s)
    tool_median = statistics.median(tool_s)
    ratio = tool_median / loop_median
    return [
        {
            "metric": f"compile: tritondev compile / triton.compile loop, {len(TARGETS)} targets (median of "
            f"{REPETITIONS}; {tool_median:.2f}s vs {loop_median:.2f}s)",
            "measured": round(ratio, 3),
            "goal": f"<= {GOAL}",
            "pass": ratio <= GOAL,
        }
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
