"""Capture records are outside input to `repro make`: only the shapes the hook writes are accepted."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.repro.fields import RecordError
from bootstrap.repro.records import parse_record
from tests.unit.repro.records_data import RECORD, record

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=30,
)


def test_a_record_as_the_hook_writes_it_is_read() -> None:
    parsed = parse_record(RECORD)
    assert parsed.kernel == "add_kernel" and parsed.grid == (4, 1, 1) and parsed.launches == 3
    assert parsed.spec is not None and parsed.spec.constexprs == {"BLOCK": 256}
    assert parsed.io_files == ["io/0.in", "io/1.in", "io/1.out"]
    launch = parsed.to_launch()
    assert "options_given" not in launch["spec"] and "pid" not in launch and "origin" not in launch


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": 2}, "format"),
        ({"id": "../../etc"}, "id"),
        ({"kernel": "add_kernel; import os"}, "kernel"),
        ({"status": "fine"}, "status"),
        ({"grid": [1, 2]}, "grid"),
        ({"grid": [-1, 1, 1]}, "grid"),
        ({"io": {"saved": True, "storages": {"0": {"bytes": 1, "in": "../../secret"}}}}, "io.storages.0.in"),
        ({"io": {"saved": True, "storages": {"0": {"bytes": 1, "out": "/etc/passwd"}}}}, "io.storages.0.out"),
        ({"error": {"type": "X", "ir_file": "../last-ir.ptx"}}, "error.ir_file"),
    ],
)
def test_fields_outside_the_hooks_shapes_are_refused(change: dict[str, Any], field: str) -> None:
    with pytest.raises(RecordError, match=f"^{field.replace('.', '[.]')}"):
        parse_record(record(**change))


def test_a_view_that_does_not_fit_its_storage_is_refused() -> None:
    data = record()
    data["args"][1]["shape"] = [100, 100]
    with pytest.raises(RecordError, match="does not fit its storage"):
        parse_record(data)


def test_an_unknown_dtype_and_a_constexpr_of_another_kernel_are_refused() -> None:
    data = record()
    data["args"][0]["dtype"] = "float32');import os;('"
    with pytest.raises(RecordError, match="dtype"):
        parse_record(data)
    data = record()
    data["spec"]["constexprs"]["OTHER"] = 1
    with pytest.raises(RecordError, match="not an argument of the kernel"):
        parse_record(data)


@given(JSON)
def test_any_json_is_a_record_or_a_record_error(value: Any) -> None:
    try:
        parse_record(value)
    except RecordError:
        pass


@given(st.sampled_from(sorted(RECORD)), JSON)
def test_any_field_replaced_is_read_or_refused_never_a_crash(field: str, value: Any) -> None:
    data = record()
    data[field] = value
    try:
        parsed = parse_record(data)
    except RecordError:
        return
    json.dumps(parsed.to_launch(), allow_nan=False)  # what reaches repro.py is plain finite JSON


@given(st.text(max_size=40), st.integers(min_value=-2, max_value=1 << 40))
def test_argument_fields_replaced_are_read_or_refused(text: str, number: int) -> None:
    for key in ("name", "dtype", "device"):
        data = record()
        data["args"][0][key] = text
        try:
            parse_record(data)
        except RecordError:
            pass
    for key in ("storage_offset", "storage_bytes", "storage", "element_size"):
        data = record()
        data["args"][1][key] = number
        try:
            parsed = parse_record(data)
        except RecordError:
            continue
        arg = parsed.args[1]
        assert 0 <= arg["storage"] < len(parsed.args) and arg["storage_bytes"] % arg["element_size"] == 0
