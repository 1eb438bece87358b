"""The first differing pass between two dumps, on real dumps and on pipelines that differ."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bootstrap.ir.diff import first_difference
from bootstrap.ir.dumps import Stage, load_dump
from bootstrap.ir.text import comparable, strip_locations, unified_diff

DUMPS = Path(__file__).parent / "dumps"


def test_num_warps_changes_the_output_of_convert_triton_to_tritongpu() -> None:
    a = load_dump(DUMPS / "triton-3.9-cuda90-warps4").of_kernel("add_kernel")
    b = load_dump(DUMPS / "triton-3.9-cuda90-warps8").of_kernel("add_kernel")
    result = first_difference(a, b)
    assert result.verdict == "pass"
    assert result.guilty is not None and result.guilty[0].arg == "convert-triton-to-tritongpu"
    assert "num-warps=4 in a, 8 in b" in result.summary
    assert result.inputs is not None and result.inputs[0].arg == "tritongpu-coalesce"
    assert '-module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32' in result.diff
    assert '+module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32' in result.diff
    assert "loc(" not in result.diff
    assert result.to_json()["pass"] == "convert-triton-to-tritongpu"


def test_the_same_dump_twice() -> None:
    a = load_dump(DUMPS / "triton-3.9-cuda90-warps4").stages
    result = first_difference(a, a)
    assert result.verdict == "same" and not result.diff


def _stage(number: int, arg: str, body: str, kind: str = "mlir") -> Stage:
    return Stage(
        number=number,
        kind=kind,
        when="before" if kind == "mlir" else None,
        name=arg,
        arg=arg,
        options=None,
        op="builtin.module",
        kernel="k",
        target=None,
        failed=False,
        header="",
        body=body,
        origin=f"{number:04d}-{arg}.mlir",
    )


def test_front_end_pipeline_and_assembly_differences() -> None:
    a = [_stage(1, "inline", "module {}"), _stage(2, "cse", "module {}")]
    assert first_difference(a, [_stage(1, "inline", "module { x }"), a[1]]).verdict == "frontend"
    # b runs an extra pass that changes the IR: the pipelines' difference comes first.
    b = [a[0], _stage(2, "triton-licm", "module {}"), _stage(3, "cse", "module { moved }")]
    result = first_difference(a, b)
    assert result.verdict == "pipeline" and "only b runs triton-licm" in result.summary
    # An extra pass that changes nothing is reported, but no IR differs.
    same = first_difference(a, [a[0], _stage(2, "triton-licm", "module {}"), a[1]])
    assert same.verdict == "same" and same.pipeline_differences == ["only b runs triton-licm"]
    # Every MLIR pass agrees, the PTX does not.
    ptx_a, ptx_b = _stage(3, "NVPTX", ".version 8.7", "nvptx"), _stage(3, "NVPTX", ".version 8.8", "nvptx")
    assembly = first_difference([*a, ptx_a], [*a, ptx_b])
    assert assembly.verdict == "after-mlir" and assembly.guilty is not None and assembly.guilty[0].arg == "cse"


def test_locations_are_left_out_unless_kept() -> None:
    a = [
        _stage(1, "inline", 'module {\n  tt.return loc("a.py":1:2)\n} loc(#loc)\n#loc = loc("a.py":1:1)'),
        _stage(2, "cse", "module {}"),
    ]
    b = [dataclasses.replace(a[0], body=a[0].body.replace("a.py", "b.py")), a[1]]
    assert first_difference(a, b).verdict == "same"
    assert first_difference(a, b, keep_locations=True).verdict == "frontend"


def test_strip_locations() -> None:
    line = '  tt.func @k(%x: !tt.ptr<f32> loc("x"), %n: i32 loc(unknown)) attributes {a = "loc(b)"} {'
    assert strip_locations(line) == '  tt.func @k(%x: !tt.ptr<f32>, %n: i32) attributes {a = "loc(b)"} {'
    assert (
        strip_locations("#loc3 = loc(callsite(#loc1 at #loc2))\n  %0 = tt.call @alloc(%a) : i32 loc(#loc3)")
        == "  %0 = tt.call @alloc(%a) : i32"
    )
    assert strip_locations("  .loc 1 12 5\n  add.s32 %r1, %r2, %r3;", "nvptx") == "  add.s32 %r1, %r2, %r3;"
    assert strip_locations("  ret void, !dbg !12\n!12 = !DILocation(line: 3)", "llvm") == "  ret void"
    assert strip_locations("  x loc(unclosed") == "  x loc(unclosed"
    assert comparable("// a comment\nmodule {}\n", "mlir", False) == "module {}"
    reproducer = "module {}\n\n{-#\n  external_resources: {\n    mlir_reproducer: {}\n  }\n#-}\n"
    assert comparable(reproducer, "mlir", False) == "module {}"
    assert unified_diff("a", "a", "x", "y") == ""
