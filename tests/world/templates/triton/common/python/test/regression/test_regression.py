"""Regression tests (test world): each needs a GPU, as upstream's do."""
import triton


def test_vector_add_block_sizes():
    for block in (128, 256, 1024):
        assert "define void @add_kernel" in triton.compile_vector_add(block_size=block)["llir"]
