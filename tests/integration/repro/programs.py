"""Programs that `tritondev repro capture` runs in the tests: kernels as users and Inductor launch them."""

from __future__ import annotations

# Under the interpreter (TRITON_INTERPRET=1, CPU torch): a kernel with a @triton.jit helper and a constexpr
# global, launched three times with the same arguments (one distinct launch).
ADD = """
import torch
import triton
import triton.language as tl

SCALE = tl.constexpr(2.0)


@triton.jit
def _twice(x):
    return x * SCALE


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, _twice(tl.load(x_ptr + offs, mask=mask)) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    torch.manual_seed(0)
    x = torch.rand(1000, device=device)
    y = torch.rand(1000, device=device)
    out = torch.empty_like(x)
    for _ in range(3):
        add_kernel[(triton.cdiv(1000, 256),)](x, y, out, x.numel(), BLOCK=256)
    torch.testing.assert_close(out, 2 * x + y)
    z = torch.ones(64, device=device)
    scale_kernel[(1,)](z, z.numel(), BLOCK=64)
    print("program: ok")
"""

# A kernel that makes NaN from finite inputs where x < 0 (0/0), next to a correct one.
NAN = """
import torch
import triton
import triton.language as tl


@triton.jit
def nan_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    zero = tl.where(x < 0, 0.0, 1.0)
    tl.store(out_ptr + offs, x * zero / zero, mask=offs < n)


@triton.jit
def good_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    torch.manual_seed(0)
    x = torch.randn(512, device=device)
    out = torch.empty_like(x)
    nan_kernel[(4,)](x, out, 512, BLOCK=128)
    good = torch.empty_like(x)
    good_kernel[(4,)](x, good, 512, BLOCK=128)
    print("NaN in the output:", int(out.isnan().sum()))
"""

# triton.autotune over two configs: the tuner's benchmark launches, then the chosen config. Its timer is a plain
# clock: Triton's own benchmarker needs a GPU driver, which the interpreter does not have.
AUTOTUNED = """
import time

import torch
import triton
import triton.language as tl


def clock(fn, quantiles):
    started = time.perf_counter()
    fn()
    return [time.perf_counter() - started] * len(quantiles)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2), triton.Config({"BLOCK": 128}, num_warps=4)],
                 key=["n"], do_bench=clock)
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


if __name__ == "__main__":
    x = torch.rand(256)
    out = torch.empty_like(x)
    copy_kernel[lambda meta: (triton.cdiv(256, meta["BLOCK"]),)](x, out, 256)
    torch.testing.assert_close(out, x)
"""

# An ahead-of-time compile for cuda:90 that fails in ptxas (no GPU needed): the PTX names no instruction.
AOT_FAILURE = """
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def bad_asm(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("bogus.op.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=offs < n)


if __name__ == "__main__":
    source = ASTSource(bad_asm, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                       constexprs={"BLOCK": 128},
                       attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
    triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
"""

# What the bad inline assembly becomes once fixed: a plain move.
AOT_FIXED_ASM = '"mov.b32 $0, $1;"'
