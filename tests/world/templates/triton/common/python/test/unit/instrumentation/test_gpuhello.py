"""The instrumentation pass plugin (test world: python/test/unit/instrumentation/test_gpuhello.py, run
by test-unit with TRITON_ALWAYS_COMPILE=1 TRITON_DISABLE_LINE_INFO=0)."""
import os

import triton


def test_line_info_is_on_for_instrumentation():
    assert os.environ.get("TRITON_DISABLE_LINE_INFO") == "0"
    assert triton.compile_vector_add(block_size=128)["llir"]
