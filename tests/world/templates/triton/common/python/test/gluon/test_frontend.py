"""Gluon's frontend (test world: python/test/gluon/test_frontend.py, part of test-nogpu from 3.6: it
needs no GPU)."""
import triton.language as tl


def test_frontend_builds_program_id():
    assert tl.program_id(1) == "tt.get_program_id 1"
