"""Where each IR line came from in the source, and the line deltas the page stores: on real IR and any text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.env.triton_variables import dump_variables
from bootstrap.ir.view.deltas import Step, apply, delta, matching_lines
from bootstrap.ir.view.locations import is_library, located_lines

DUMPS = Path(__file__).parent / "dumps" / "add-3.9-cuda90-lineinfo"
KERNEL = "/tmp/irv/add/add.py"  # where the kernel was when Triton 3.9 compiled it for this dump


def test_mlir_aliases_and_names_resolve_to_the_kernels_lines() -> None:
    body = (DUMPS / "0010-TritonGPUCoalesce.mlir").read_text().split("\n", 1)[1]
    shown = located_lines(body, "mlir")
    assert not any("loc(" in line or line.startswith("#loc") for line in shown.lines)
    by_text = dict(zip(shown.lines, shown.where, strict=True))
    program_id = next(line for line in shown.lines if "tt.get_program_id" in line)
    assert by_text[program_id] == (KERNEL, 7)  # pid = tl.program_id(0)
    store = next(line for line in shown.lines if "tt.store" in line)
    assert by_text[store] == (KERNEL, 12)
    header = next(line for line in shown.lines if "tt.func public @add_kernel" in line)
    assert by_text[header] == (KERNEL, 6)  # the arguments' locations name the def line


def test_a_call_into_tritons_library_is_given_the_kernels_line() -> None:
    text = "\n".join(
        [
            '#loc1 = loc("/home/me/k.py":15:20)',
            '#loc2 = loc("/venv/lib/python3.11/site-packages/triton/language/standard.py":43:12)',
            "#loc3 = loc(callsite(#loc2 at #loc1))",
            '#loc4 = loc("acc"(#loc3))',
            "    %0 = arith.constant dense<0.0> : tensor<128xf32> loc(#loc4)",
            "    %1 = arith.addf %0, %0 : tensor<128xf32> loc(#loc2)",
        ]
    )
    shown = located_lines(text, "mlir")
    assert shown.lines == [
        "    %0 = arith.constant dense<0.0> : tensor<128xf32>",
        "    %1 = arith.addf %0, %0 : tensor<128xf32>",
    ]
    library = "/venv/lib/python3.11/site-packages/triton/language/standard.py"
    assert shown.where == [("/home/me/k.py", 15), (library, 43)]
    assert is_library("/venv/lib/python3.11/site-packages/triton/language/standard.py")
    assert not is_library("/home/me/k.py")


def test_aliases_that_refer_to_each_other_in_a_circle_resolve_to_nothing() -> None:
    text = "#loc1 = loc(#loc2)\n#loc2 = loc(#loc1)\n  %0 = arith.constant 1 : i32 loc(#loc1)"
    assert located_lines(text, "mlir").where == [None]


def test_llvm_ir_locations_follow_scopes_and_inlining() -> None:
    text = "\n".join(
        [
            "define void @k() !dbg !4 {",
            "  %1 = fadd float 0.0, 1.0, !dbg !12",
            "  %2 = fmul float %1, %1, !dbg !13",
            "  ret void, !dbg !14",
            "}",
            '!1 = !DIFile(filename: "k.py", directory: "/home/me")',
            '!2 = !DIFile(filename: "standard.py", directory: "/venv/site-packages/triton/language")',
            '!4 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 6)',
            '!5 = distinct !DISubprogram(name: "zeros", scope: !2, file: !2, line: 40)',
            "!6 = distinct !DILexicalBlockFile(scope: !4, file: !1, discriminator: 0)",
            "!12 = !DILocation(line: 8, column: 13, scope: !6)",
            "!13 = !DILocation(line: 43, column: 3, scope: !5, inlinedAt: !12)",
            "!14 = !DILocation(line: 0, scope: !4)",
        ]
    )
    shown = located_lines(text, "llvm")
    assert shown.lines == [
        "define void @k() !dbg !4 {",
        "  %1 = fadd float 0.0, 1.0",
        "  %2 = fmul float %1, %1",
        "  ret void",
        "}",
    ]
    assert shown.where[1:4] == [("/home/me/k.py", 8), ("/home/me/k.py", 8), None]


def test_ptx_names_its_files_after_the_code_and_amdgcn_before_it() -> None:
    ptx = "\n".join(
        [
            "\t.loc\t1 8 13",
            "\tmov.u32 %r1, %ctaid.x;",
            "\t.loc\t2 43 1",
            "\tadd.s32 %r2, %r1, 1;",
            "}",
            '\t.file\t1 "/home/me/k.py"',
            '\t.file\t2 "/venv/triton/language/standard.py"',
        ]
    )
    shown = located_lines(ptx, "nvptx")
    assert shown.lines == ["\tmov.u32 %r1, %ctaid.x;", "\tadd.s32 %r2, %r1, 1;", "}"]
    assert shown.where == [("/home/me/k.py", 8), ("/venv/triton/language/standard.py", 43), None]
    amdgcn = '\t.file\t1 "/home/me" "k.py"\n\t.loc\t1 10 5 prologue_end\n\tv_add_u32 v0, v1, v2'
    assert located_lines(amdgcn, "amdgcn").where[-1] == ("/home/me/k.py", 10)


@given(
    st.text(
        alphabet=st.sampled_from(["l", "o", "c", "(", ")", '"', "#", "1", ":", " ", "\n", "!", "\\", "=", "a"]),
        max_size=300,
    ),
    st.sampled_from(["mlir", "llvm", "nvptx", "amdgcn", "other"]),
)
def test_any_text_is_read_without_error_and_never_gains_lines(text: str, kind: str) -> None:
    shown = located_lines(text, kind)
    assert len(shown.lines) == len(shown.where) <= text.count("\n") + 1


LINES = st.lists(st.sampled_from(["a", "b", "c", "  %0 = x", "}", ""]), max_size=40)


@given(LINES, LINES)
def test_a_delta_rebuilds_the_text_after_and_counts_what_it_changes(before: list[str], after: list[str]) -> None:
    found = delta(before, after)
    assert apply(before, found.steps) == after
    assert found.changed == (before != after)
    kept = sum(s for s in found.steps if isinstance(s, int))
    assert kept == len(before) - found.removed == len(after) - found.added
    pairs = matching_lines(before, after)
    assert all(before[i] == after[j] for i, j in pairs)
    assert [i for i, _ in pairs] == sorted({i for i, _ in pairs})
    assert [j for _, j in pairs] == sorted({j for _, j in pairs})


def test_a_pass_that_changes_one_line_of_a_large_module_costs_one_line() -> None:
    before = [f"  %{i} = arith.addi %{i - 1}, %c1 : i32" for i in range(20000)]
    after = [*before[:7000], "  %new = arith.muli %a, %b : i32", *before[7001:]]
    found = delta(before, after)
    assert (found.added, found.removed) == (1, 1)
    assert found.steps == [7000, [1, ["  %new = arith.muli %a, %b : i32"]], 12999]


def test_steps_that_do_not_fit_the_text_are_refused() -> None:
    wrong: list[list[Step]] = [[5], [[3, []]], [1], [[0, ["x"]], 3]]
    for steps in wrong:
        with pytest.raises(ValueError):
            apply(["a", "b"], steps)


def test_run_dump_ir_keeps_the_line_info_the_user_asked_for() -> None:
    assert dump_variables("nvidia", environ={})["TRITON_DISABLE_LINE_INFO"] == "1"
    assert dump_variables("nvidia", environ={"TRITON_DISABLE_LINE_INFO": "0"})["TRITON_DISABLE_LINE_INFO"] == "0"
    assert dump_variables("amd", environ={"TRITON_DISABLE_LINE_INFO": " "})["TRITON_DISABLE_LINE_INFO"] == "1"
