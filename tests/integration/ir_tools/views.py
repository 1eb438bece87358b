"""Real dumps for `ir view`: a matmul compiled by the real Triton 3.9 wheel (no GPU needed), dumped with
`tritondev run --dump-ir` (with line info, TRITON_DISABLE_LINE_INFO=0) and written by `tritondev compile
--out` for cuda:90 and hip:gfx942. The benchmark (tests/perf/bench_ir_view.py) uses the same."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.integration.build.harness import tritondev
from tests.integration.ir_tools.conftest import AOT, TARGETS, clean_environment
from tests.support.venvs import triton_venv

MATMUL = """import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, c, mask=mask)
"""
DOT_LINE = 19  # acc += tl.dot(a, b)
PARAMS = [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16")] + [
    (name, "i32")
    for name in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")
]
CONSTEXPRS = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}


@dataclass(frozen=True)
class Matmul:
    kernel_file: Path
    dump: Path  # run --dump-ir, with line info
    compiled: Path  # compile --out: cuda-90/ and hip-gfx942/
    compile_report: dict[str, object]
    env: dict[str, str]


def make_matmul(root: Path) -> Matmul:
    root.mkdir(parents=True, exist_ok=True)
    kernel_file = root / "mm.py"
    kernel_file.write_text(MATMUL)
    env = clean_environment(root / "home")
    python = triton_venv()
    request = root / "request.json"
    request.write_text(
        json.dumps(
            {
                "source": str(kernel_file),
                "kernel": "matmul_kernel",
                "params": [{"name": n, "type": t} for n, t in PARAMS],
                "constexprs": CONSTEXPRS,
                "targets": [TARGETS["cuda:90"]],
                "out": str(root / "aot-out"),
                "options": {"num_warps": 8, "num_stages": 3},
            }
        )
    )
    dump = root / "dump"
    proc = tritondev(
        "run",
        "--dump-ir",
        "--dump-dir",
        str(dump),
        "--",
        str(python),
        str(AOT),
        str(request),
        env={**env, "TRITON_DISABLE_LINE_INFO": "0"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    compiled = root / "compiled"
    signature = ",".join(f"{n}={t}" for n, t in PARAMS)
    proc = tritondev(
        "compile",
        f"{kernel_file}::matmul_kernel",
        "--signature",
        signature,
        *[f"--constexpr={k}={v}" for k, v in CONSTEXPRS.items()],
        "--num-warps",
        "8",
        "--num-stages",
        "3",
        "--target",
        "cuda:90",
        "--target",
        "hip:gfx942",
        "--out",
        str(compiled),
        "--python",
        str(python),
        "--workspace",
        str(root / "ws"),
        "--json",
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return Matmul(kernel_file, dump, compiled, json.loads(proc.stdout), env)


def dumped_passes(dump: Path) -> int:
    """How many MLIR passes index.json lists (a dump of one compile: nested passes on its helpers included)."""
    rows = json.loads((dump / "index.json").read_text())["passes"]
    return sum(1 for r in rows if r["when"] == "before" and r["kind"] == "mlir")
