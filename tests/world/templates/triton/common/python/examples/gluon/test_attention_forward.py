"""Gluon examples (test world: python/examples/gluon/), run by test-gluon from 3.7, on the GPU."""
import triton


def test_example_compiles():
    assert triton.compile_vector_add(block_size=256, num_warps=8)["ttgir"]
