# mypy: ignore-errors
"""Run verify's sample kernels and check them against torch: on the GPU, or under TRITON_INTERPRET=1.

`python tritondev_kernels.py gpu|interpreter`. One `kernel` event per kernel, a `bandwidth` event on
the GPU (the vector add's effective bandwidth beside a torch device-to-device copy's), then `done`.
A kernel that fails or differs is reported, never raised: verify wants every result.
"""

import sys
import time

from tritondev_protocol import EXIT_MISSING, emit, error_tail, fail, import_triton


def require(module):
    try:
        return __import__(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            fail("missing", f"{module} is not installed in this environment", EXIT_MISSING, module=module)
        raise


def check(name, run):
    started = time.perf_counter()
    try:
        shape, error, tolerance = run()
    except Exception as exc:
        emit("kernel", name=name, ok=False, error=f"{type(exc).__name__}", tail=error_tail(exc, 15))
        return
    ok = error <= tolerance
    emit(
        "kernel",
        name=name,
        ok=ok,
        max_abs_err=error,
        tolerance=tolerance,
        shape=shape,
        seconds=round(time.perf_counter() - started, 3),
    )


def main():
    mode = sys.argv[1]
    torch = require("torch")
    if mode == "interpreter":
        require("numpy")  # the interpreter computes with numpy
    import_triton()
    import triton
    import tritondev_samples as samples

    gpu = mode == "gpu"
    runs = SampleRuns(torch, triton, samples, gpu)
    check("vector_add", runs.vector_add)
    check("softmax", runs.softmax)
    check("matmul", runs.matmul)
    if gpu:
        bandwidth(torch, triton, samples)
    emit("done")


class SampleRuns:
    """Each sample kernel run once on seeded random inputs (small ones in the interpreter), as `check` wants
    it: (shape, max abs error against torch, tolerance)."""

    def __init__(self, torch, triton, samples, gpu):
        self.torch, self.triton, self.samples, self.gpu = torch, triton, samples, gpu
        self.device = "cuda" if gpu else "cpu"
        self.gen = torch.Generator(device=self.device).manual_seed(0)

    def rand(self, *shape, dtype=None):
        torch = self.torch
        return torch.rand(*shape, generator=self.gen, device=self.device, dtype=torch.float32).to(
            dtype or torch.float32
        )

    def vector_add(self):
        torch, triton, gpu = self.torch, self.triton, self.gpu
        n = (1 << 20) + 17 if gpu else 4096 + 17  # not a multiple of BLOCK: the mask is exercised
        x, y = self.rand(n), self.rand(n)
        out = torch.empty_like(x)
        self.samples.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return [n], (out - (x + y)).abs().max().item(), 0.0

    def softmax(self):
        torch, triton, gpu = self.torch, self.triton, self.gpu
        rows, cols = (1823, 781) if gpu else (37, 100)
        x = self.rand(rows, cols) * 10
        out = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        self.samples.softmax_kernel[(rows,)](out, x, cols, x.stride(0), out.stride(0), BLOCK=block)
        return [rows, cols], (out - torch.softmax(x, dim=1)).abs().max().item(), 1e-5

    def matmul(self):
        torch, triton, gpu = self.torch, self.triton, self.gpu
        # fp16 on the GPU (the tensor-core path), fp32 in the interpreter (numpy has no fast fp16 dot).
        m, n, k = (512, 384, 320) if gpu else (64, 48, 40)
        dtype = torch.float16 if gpu else torch.float32
        a, b = self.rand(m, k, dtype=dtype) - 0.5, self.rand(k, n, dtype=dtype) - 0.5
        c = torch.empty((m, n), device=self.device, dtype=dtype)
        bm, bn, bk = (64, 64, 32) if gpu else (32, 32, 16)
        grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
        self.samples.matmul_kernel[grid](
            a,
            b,
            c,
            m,
            n,
            k,
            a.stride(0),
            a.stride(1),
            b.stride(0),
            b.stride(1),
            c.stride(0),
            c.stride(1),
            BLOCK_M=bm,
            BLOCK_N=bn,
            BLOCK_K=bk,
        )
        expected = a.float() @ b.float()
        return [m, n, k], (c.float() - expected).abs().max().item(), 2e-2 if gpu else 1e-4


def bandwidth(torch, triton, samples):
    """GB/s of the vector add (reads 2, writes 1) beside torch's device-to-device copy (reads 1, writes 1)."""
    from triton.testing import do_bench

    n = 1 << 26
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    try:
        add_ms = do_bench(lambda: samples.add_kernel[grid](x, y, out, n, BLOCK=1024))
        copy_ms = do_bench(lambda: out.copy_(x))
    except Exception as exc:
        emit("bandwidth", ok=False, error=type(exc).__name__, tail=error_tail(exc, 10))
        return
    add_gbps = 3 * n * x.element_size() / (add_ms * 1e-3) / 1e9
    copy_gbps = 2 * n * x.element_size() / (copy_ms * 1e-3) / 1e9
    emit(
        "bandwidth",
        ok=True,
        elements=n,
        add_ms=add_ms,
        copy_ms=copy_ms,
        add_gbps=round(add_gbps, 1),
        copy_gbps=round(copy_gbps, 1),
        ratio=round(add_gbps / copy_gbps, 3),
    )


if __name__ == "__main__":
    main()
