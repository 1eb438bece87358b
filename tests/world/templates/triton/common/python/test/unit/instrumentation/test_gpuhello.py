"""The instrumentation pass plugin (test world: python/test/unit/instrumentation/test_gpuhello.py). It
runs in a step of its own, with TRITON_ALWAYS_COMPILE=1 TRITON_DISABLE_LINE_INFO=0 (the Makefile's
test-unit up to 3.8, the test runner's on main); in the pass over the whole folder it skips, as
upstream's does without its plugin library."""
import os

import pytest

import triton


def test_line_info_is_on_for_instrumentation():
    if os.environ.get("TRITON_ALWAYS_COMPILE") != "1":
        pytest.skip("run by test-unit's instrumentation step")
    assert os.environ.get("TRITON_DISABLE_LINE_INFO") == "0"
    assert triton.compile_vector_add(block_size=128)["llir"]
