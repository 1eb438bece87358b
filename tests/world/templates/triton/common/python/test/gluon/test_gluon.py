"""Gluon tests (test world): the frontend's lower-level language, on the GPU."""
import triton


def test_gluon_compiles():
    assert triton.compile_vector_add(block_size=128, num_warps=8)["ttgir"]
