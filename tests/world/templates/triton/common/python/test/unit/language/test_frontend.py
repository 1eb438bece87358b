"""Triton's frontend (test world: python/test/unit/language/test_frontend.py, part of test-nogpu from
3.6: it needs no GPU)."""
import triton.language as tl


def test_frontend_program_ids():
    assert [tl.program_id(axis) for axis in range(3)] == [f"tt.get_program_id {axis}" for axis in range(3)]
