"""Values renamed in order (ir diff's default) and Triton's per-kernel dump filter kept (run/env --dump-ir)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.env.triton_variables import dump_variables
from bootstrap.ir.text import comparable, rename_values

NAMED = """tt.func public @add_kernel(%x_ptr: !tt.ptr<f32>, %n: i32) {
    %pid = tt.get_program_id x : i32
    %offs = arith.muli %pid, %c1024_i32 : i32
    %x_24 = tt.load %x_ptr, %mask_22 : tensor<1024x!tt.ptr<f32>>
    tt.elementwise_inline_asm "mov.u32 $0, %ctaid.x;" {pure = true} %offs
}"""
NUMBERED = """tt.func public @add_kernel(%x_ptr: !tt.ptr<f32>, %n: i32) {
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.load %x_ptr, %3 : tensor<1024x!tt.ptr<f32>>
    tt.elementwise_inline_asm "mov.u32 $0, %ctaid.x;" {pure = true} %1
}"""


def test_names_from_line_info_and_numbers_compare_equal() -> None:
    assert rename_values(NAMED) == rename_values(NUMBERED)
    assert '"mov.u32 $0, %ctaid.x;"' in rename_values(NAMED)  # strings are left alone
    assert comparable(NAMED, "mlir", False, keep_names=True) != comparable(NUMBERED, "mlir", False, keep_names=True)
    assert comparable(NAMED, "mlir", False, keep_names=False) == comparable(NUMBERED, "mlir", False, keep_names=False)


def test_a_real_difference_still_differs() -> None:
    changed = NUMBERED.replace("arith.muli %0", "arith.addi %0")
    assert rename_values(changed) != rename_values(NAMED)
    swapped = NUMBERED.replace("arith.muli %0, %c1024_i32", "arith.muli %c1024_i32, %0")
    assert rename_values(swapped) != rename_values(NUMBERED)


@given(st.text(max_size=300))
def test_renaming_is_idempotent_on_any_text(text: str) -> None:
    once = rename_values(text)
    assert rename_values(once) == once


def test_the_users_kernel_filter_is_kept() -> None:
    assert dump_variables("nvidia", environ={})["MLIR_ENABLE_DUMP"] == "1"
    assert dump_variables("nvidia", environ={"MLIR_ENABLE_DUMP": "add_kernel"})["MLIR_ENABLE_DUMP"] == "add_kernel"
    assert dump_variables("nvidia", environ={"MLIR_ENABLE_DUMP": "0"})["MLIR_ENABLE_DUMP"] == "1"
    assert dump_variables("nvidia", environ={"MLIR_ENABLE_DUMP": "TRUE"})["MLIR_ENABLE_DUMP"] == "1"
    assert dump_variables("amd", "mul_kernel", environ={"MLIR_ENABLE_DUMP": "add_kernel"})["MLIR_ENABLE_DUMP"] == (
        "mul_kernel"
    )


def test_a_number_run_into_letters_is_one_value() -> None:
    # Found by the property above: `%0A` renamed as `%0` then `A` gave `%v0A`, a new name on a second pass.
    assert rename_values("%0A %0 %0A") == "%v0 %v1 %v0"
    assert rename_values("%0#1 = %x, %0#2") == "%v0#1 = %v1, %v0#2"  # a result number is not part of the name
