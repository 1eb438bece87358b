"""Proton profiler tests (test world): they profile kernels on the GPU."""
import triton


def test_profiled_kernel_compiles():
    assert triton.compile_vector_add(block_size=128)["ttir"]
