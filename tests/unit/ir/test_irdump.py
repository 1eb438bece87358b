"""The dump splitter on real dumps printed by the real Triton compiler."""

from __future__ import annotations

import pytest

from bootstrap.ir.header import parse_header


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "// -----// IR Dump Before TritonGPUCoalesce: tritongpu-coalesce ('builtin.module' operation) //----- //",
            ("mlir", "before", "TritonGPUCoalesce", "tritongpu-coalesce", "builtin.module", None),
        ),
        (
            "// -----// IR Dump After Canonicalizer (canonicalize) ('tt.func' operation: @matmul_kernel) //----- //",
            ("mlir", "after", "Canonicalizer", "canonicalize", "tt.func", "matmul_kernel"),
        ),
        (
            "// -----// SoftwarePipeliner internal IR Dump After: LowerLoops",
            ("mlir", "after", "SoftwarePipeliner-LowerLoops", None, None, None),
        ),
        ("// -----// NVPTX Dump //----- //", ("nvptx", None, "NVPTX", None, None, None)),
        (
            "; *** IR Dump After InstCombinePass on add_kernel ***",
            ("llvm", "after", "InstCombinePass", None, None, "add_kernel"),
        ),
        (
            "; *** IR Dump After InlinerPass on (add_kernel) ***",
            ("llvm", "after", "InlinerPass", None, None, "add_kernel"),
        ),
        ("*** IR Dump Before GlobalOptPass on [module] ***", ("llvm", "before", "GlobalOptPass", None, None, None)),
        (
            "# *** IR Dump After NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel) ***:",
            ("llvm", "after", "NVPTX DAG->DAG Pattern Instruction Selection", "nvptx-isel", None, None),
        ),
    ],
)
def test_parse_header(line: str, expected: tuple[str | None, ...]) -> None:
    header = parse_header(line)
    assert header is not None
    assert (header["kind"], header["when"], header["pass"], header["arg"], header["op"], header["kernel"]) == expected


@pytest.mark.parametrize("line", ["// a comment", "*** not a dump ***", "program: compiled", ""])
def test_not_headers(line: str) -> None:
    assert parse_header(line) is None
