"""Line info in the generated code (test world: python/test/unit/language/test_line_info.py, which
the Makefile's test-unit runs with TRITON_DISABLE_LINE_INFO=0)."""
import os

import pytest


@pytest.mark.interpreter
def test_line_info_is_kept():
    if os.environ.get("TRITON_INTERPRET") == "1":
        return  # the interpreter runs the Python source itself
    assert os.environ.get("TRITON_DISABLE_LINE_INFO") == "0"
