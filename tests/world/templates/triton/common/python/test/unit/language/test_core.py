"""Language tests (test world: a miniature of python/test/unit/language/test_core.py)."""
import os

import pytest

import triton
import triton.language as tl


def interpreted() -> bool:
    return os.environ.get("TRITON_INTERPRET") == "1"


def test_vector_add_compiles_to_llvm_ir():
    result = triton.compile_vector_add(block_size=128)
    assert "define void @add_kernel" in result["llir"]


@pytest.mark.interpreter
def test_program_id(device):
    # Upstream runs interpreter-marked tests on the GPU (test-unit) and under TRITON_INTERPRET=1 on the
    # CPU (test-interpret, --device=cpu).
    if interpreted():
        assert device == "cpu"
    assert tl.program_id(0) == "tt.get_program_id 0"


@pytest.mark.interpreter
def test_launch_on_the_device(device):
    if device == "cpu":
        pytest.skip("launches a kernel on the GPU")
    assert triton.compile_vector_add(block_size=256, target="nvidia")["ttgir"]
