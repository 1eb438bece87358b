"""Multi-GPU kernels (test world: upstream's test-distributed runs python/triton_kernels/bench/distributed.py)."""
import triton


def test_distributed_kernel_compiles():
    assert triton.compile_vector_add(block_size=1024)["llir"]
