"""`ir diff`'s comparison of two dumps of a real Triton 3.9 compile: the same dump twice differs nowhere; an
edit to one pass's output is found at that pass; a kernel that is in neither dump is refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bootstrap.ir.compare import compare_dumps
from bootstrap.ir.dumps import DumpError

DUMPS = Path(__file__).parent / "view" / "dumps" / "add-3.9-cuda90-lineinfo"


def test_a_dump_against_itself_is_the_same() -> None:
    same = compare_dumps(DUMPS, DUMPS, None, keep_locations=False, keep_names=False)
    assert same.difference.verdict == "same" and same.kernel_a == same.kernel_b
    assert same.to_json()["verdict"] == "same"


def test_an_edited_pass_output_is_the_first_difference(tmp_path: Path) -> None:
    edited = tmp_path / "b"
    shutil.copytree(DUMPS, edited)
    coalesce = edited / "0010-TritonGPUCoalesce.mlir"
    for later in sorted(edited.glob("00*.mlir")):
        if later.name >= coalesce.name:  # this pass's output, and every one after it, carries the edit
            later.write_text(
                later.read_text().replace("tt.load", "tt.load /*edited*/", 1).replace("arith.addf", "arith.subf")
            )
    found = compare_dumps(DUMPS, edited, None, keep_locations=False, keep_names=False)
    assert found.difference.verdict == "pass", found.difference.summary
    # Each file is the IR before its pass: an edit first seen before Coalesce is the output of the pass before.
    assert found.difference.guilty is not None
    assert found.difference.guilty[0].name == "ConvertTritonToTritonGPU"
    with pytest.raises(DumpError):
        compare_dumps(DUMPS, edited, "no_such_kernel", keep_locations=False, keep_names=False)
