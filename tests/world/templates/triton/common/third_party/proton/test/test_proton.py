"""Proton profiler tests (test world): they profile kernels on the GPU."""
import triton


def test_profiled_kernel_compiles():
    assert triton.compile_vector_add(block_size=128)["ttir"]


def test_overhead():
    # Upstream's test-proton runs its overhead test alone (test_instrumentation.py::test_overhead).
    assert triton.compile_vector_add(block_size=128)["ttgir"]
