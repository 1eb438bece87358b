"""The GPU sanitizer's tests (test world: python/test/gsan/, test-gsan from 3.7), on the GPU."""
import triton


def test_sanitized_kernel_compiles():
    assert triton.compile_vector_add(block_size=128)["llir"]
