"""--signature / --constexpr / FILE::KERNEL parsers: what they accept and how they name bad input."""

from __future__ import annotations

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.kernels.signature import (
    SCALAR_TYPES,
    Param,
    parse_constexpr_value,
    parse_constexprs,
    parse_kernel_args,
    parse_signature,
    split_kernel_ref,
)


def test_signature_in_order_with_pointers_hints_and_spaces() -> None:
    params = parse_signature(" x_ptr=*fp32:16, y = *kbf16 ,n=i32, flag=i1,scale=fp32")
    assert params == (
        Param("x_ptr", "*fp32", 16),
        Param("y", "*kbf16", None),
        Param("n", "i32", None),
        Param("flag", "i1", None),
        Param("scale", "fp32", None),
    )


@pytest.mark.parametrize("ty", SCALAR_TYPES)
def test_every_scalar_type_and_its_pointer(ty: str) -> None:
    assert parse_signature(f"a={ty},b=*{ty}")[1].type == f"*{ty}"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("x_ptr=*float32", "*float32"),
        ("n=int32", "int32"),
        ("x_ptr", "'x_ptr' is not name=type"),
        ("x=*fp32,,n=i32", "empty entry"),
        ("x=*fp32,x=i32", "given twice"),
        ("1x=i32", "'1x'"),
        ("n=", "has no type"),
        ("x=*fp32:8", "':8'"),
        ("", "empty"),
    ],
)
def test_bad_signatures_name_the_bad_part(text: str, names: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_signature(text)
    assert names in info.value.message


def test_unknown_type_lists_valid_types_and_suggests() -> None:
    with pytest.raises(UsageError) as info:
        parse_signature("x_ptr=*fp3,n=i32")
    assert "did you mean *fp32" in info.value.message
    assert info.value.fix is not None
    for ty in ("i32", "fp16", "bf16", "fp8e4nv"):
        assert ty in info.value.fix


def test_constexpr_values() -> None:
    assert parse_constexprs(["BLOCK=1024", "X=0x10", "EPS=1e-5", "FLAG=true", "OFF=False", "ACT=relu", "Q='x'"]) == {
        "BLOCK": 1024,
        "X": 16,
        "EPS": 1e-5,
        "FLAG": True,
        "OFF": False,
        "ACT": "relu",
        "Q": "x",
    }
    assert parse_constexpr_value("None") is None


@pytest.mark.parametrize("item", ["BLOCK", "BLOCK=", "=3", "9X=1"])
def test_bad_constexpr(item: str) -> None:
    with pytest.raises(UsageError):
        parse_constexprs([item])


def test_constexpr_twice_and_in_both_places() -> None:
    with pytest.raises(UsageError, match="twice"):
        parse_constexprs(["B=1", "B=2"])
    with pytest.raises(UsageError, match="both in --signature and as --constexpr"):
        parse_kernel_args("n=i32,B=i32", ["B=4"])


def test_kernel_ref() -> None:
    assert split_kernel_ref("a/b::c.py::kern") == ("a/b::c.py", "kern")
    for bad in ("file.py", "::kern", "file.py::", "file.py::1k"):
        with pytest.raises(UsageError):
            split_kernel_ref(bad)
