"""Upstream's positional --signature (`python -m triton.tools.compile --signature "*fp32:16, i32, 1024"`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import UsageError
from bootstrap.kernels.signature import Positional, is_positional, parse_kernel_args


def test_types_hints_and_values_in_order() -> None:
    args = parse_kernel_args("*fp32:16, *kbf16, i32, 1024, i32:1, 0.5", [])
    assert args.params == () and args.positional == (
        Positional("*fp32", 16),
        Positional("*kbf16"),
        Positional("i32"),
        Positional(None, None, 1024),
        Positional(None, None, 1),
        Positional(None, None, 0.5),
    )


def test_the_named_form_is_not_positional_and_no_signature_asks_the_kernel() -> None:
    assert not is_positional("x_ptr=*fp32,n=i32") and is_positional("*fp32, i32")
    assert parse_kernel_args(None, ["BLOCK=4"]).constexprs == {"BLOCK": 4}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("*fp32,, i32", "empty entry"),
        ("*fp23, i32", "did you mean *fp32"),
        ("x_ptr", "'x_ptr' is not name=type, nor a type or a value of the positional form"),
        ("*fp32:8", "bad hint"),
    ],
)
def test_bad_entries_name_the_bad_part(text: str, says: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_kernel_args(text, [])
    assert says in info.value.message and info.value.fix


@given(st.text(max_size=80))
def test_any_signature_text_is_parsed_or_a_usage_error(text: str) -> None:
    try:
        parse_kernel_args(text, [])
    except UsageError as exc:
        assert exc.fix
