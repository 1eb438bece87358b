"""pip's `list -v --format=json` answer, parsed without pip-api: every shape pip wrote since pip 9, and
anything else a ValueError (never a crash)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.purge.pipbridge import Listed, parse_pip_list

PIP_24 = json.dumps(
    [
        {
            "name": "Triton",
            "version": "3.6.0+git1234abcd",
            "location": "/v/lib/python3.11/site-packages",
            "editable_project_location": "/ws/src/triton",
            "installer": "pip",
        },
        {"name": "torch", "version": "2.11.0", "location": "/v/lib/python3.11/site-packages", "installer": "pip"},
    ]
)


def test_an_answer_of_todays_pip() -> None:
    found = parse_pip_list(PIP_24)
    assert found["triton"] == Listed("Triton", "3.6.0+git1234abcd", "/v/lib/python3.11/site-packages", "/ws/src/triton")
    assert found["torch"].editable_project_location is None


def test_older_pips_without_location() -> None:
    assert parse_pip_list('[{"name": "pip", "version": "9.0.1"}]')["pip"].location is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "null",
        "{}",
        "[1]",
        '[{"name": "x"}]',
        '[{"name": 1, "version": "1"}]',
        "WARNING: no json",
        '[{"name": "x", "version": "1", "location": []}]',
    ],
)
def test_other_answers_are_value_errors(text: str) -> None:
    with pytest.raises(ValueError):
        parse_pip_list(text)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(
    st.one_of(
        st.text(max_size=200),
        JSON.map(json.dumps),
        st.lists(
            st.dictionaries(
                st.sampled_from(["name", "version", "location", "editable_project_location"]), JSON, max_size=4
            ),
            max_size=4,
        ).map(json.dumps),
    )
)
def test_any_answer_is_a_listing_or_a_value_error(text: str) -> None:
    try:
        found = parse_pip_list(text)
    except ValueError:
        return
    assert all(isinstance(d.name, str) and isinstance(d.version, str) for d in found.values())
