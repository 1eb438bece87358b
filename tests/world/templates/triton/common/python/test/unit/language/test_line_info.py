"""Line info in the generated code (test world: python/test/unit/language/test_line_info.py; the
Makefile's test-unit runs it with TRITON_DISABLE_LINE_INFO=0 up to 3.6, and with the rest of the unit
tests from 3.7)."""
import os

import pytest


@pytest.mark.interpreter
def test_line_info_is_kept():
    if os.environ.get("TRITON_INTERPRET") == "1":
        return  # the interpreter runs the Python source itself
    assert os.environ.get("TRITON_DISABLE_LINE_INFO", "0") == "0"
