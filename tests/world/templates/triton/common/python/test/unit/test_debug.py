"""Device-side asserts (test world: python/test/unit/test_debug.py, which the Makefile's test-unit runs
on its own, with --forked in 3.3-3.6)."""
import triton


def test_debug_build_compiles():
    assert triton.compile_vector_add(block_size=64)["ttir"]
