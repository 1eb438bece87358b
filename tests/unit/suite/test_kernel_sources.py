"""The tests' kernel sources: the matmul is the one `tritondev verify` runs, taken whole from its file."""

from __future__ import annotations

import ast

import pytest

from tests.support.kernels import SAMPLES, sample_kernel_source


def test_the_matmul_is_the_samples_own_function_whole() -> None:
    source = sample_kernel_source("matmul_kernel")
    assert source.startswith("@triton.jit\ndef matmul_kernel(") and source in SAMPLES.read_text()
    (function,) = ast.parse(source).body
    assert isinstance(function, ast.FunctionDef) and function.body[-1].lineno == len(source.splitlines())


def test_a_kernel_the_samples_lack_is_an_error() -> None:
    with pytest.raises(LookupError, match="no kernel nope"):
        sample_kernel_source("nope")
