"""The state `setup` leaves for `build`: its round trip, and its refusal of anything else (exit 2, one
line, "run `tritondev setup` again"), never a traceback, whatever the file holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootstrap.core.errors import ExitCode
from bootstrap.pipeline.built.state import (
    SCHEMA,
    SetupState,
    StateError,
    parse_state,
    read_state,
    state_path,
    write_state,
)
from bootstrap.pipeline.host.toolchain import Tool
from bootstrap.pipeline.recipe.inputs import Command

PATH_FIELDS = frozenset({"triton_src", "setup_dir", "python", "llvm_build"})
text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0"), min_size=1, max_size=20)
paths = st.lists(text.filter(lambda t: "/" not in t), min_size=1, max_size=4).map(lambda p: Path("/", *p))
commands = st.builds(
    Command,
    step=text,
    argv=st.lists(text, min_size=1, max_size=5).map(tuple),
    cwd=st.none() | text,
    env=st.lists(st.tuples(text, st.text(max_size=20)), max_size=4).map(tuple),
    unset=st.lists(text, max_size=3).map(tuple),
)
states = st.builds(
    SetupState,
    triton_src=paths,
    setup_dir=paths,
    python=paths,
    python_origin=text,
    llvm_build=paths,
    triton_commit=text,
    install=commands,
    ccache=st.none() | st.builds(Tool, text, text, text),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def example() -> SetupState:
    install = Command(
        "triton-install",
        ("/ws/venv/bin/python", "-m", "pip", "install", "-e", "/ws/src/triton"),
        "/ws/src/triton",
        (("MAX_JOBS", "2"),),
        ("DEBUG",),
    )
    return SetupState(
        Path("/ws/src/triton"),
        Path("/ws/src/triton"),
        Path("/ws/venv/bin/python"),
        "workspace venv",
        Path("/ws/build/llvm/k"),
        "d" * 40,
        install,
        Tool("ccache", "/usr/bin/ccache", "4.7.5"),
    )


WHERE = Path("/ws/state/setup.json")


@settings(max_examples=300)
@given(state=states)
def test_round_trip(state: SetupState) -> None:
    assert parse_state(json.dumps(state.to_json(), indent=2, sort_keys=True).encode(), WHERE) == state


def test_the_file_round_trip_and_its_kind(tmp_path: Path) -> None:
    assert read_state(tmp_path) is None
    write_state(tmp_path, example())
    assert read_state(tmp_path) == example()
    data = json.loads(state_path(tmp_path).read_text())
    assert data["kind"] == "tritondev-setup-state" and data["schema"] == SCHEMA


def _refused(content: str | bytes) -> StateError:
    with pytest.raises(StateError) as info:
        parse_state(content if isinstance(content, bytes) else content.encode(), WHERE)
    error = info.value
    path = WHERE
    assert error.exit_code == ExitCode.USAGE and "\n" not in error.message
    assert str(path) in error.message and error.fix is not None and "tritondev setup" in error.fix
    return error


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{ not json", "not valid JSON"),
        (b"\xff\xfe garbage", "cannot be read"),
        ("[]", "not a JSON object"),
        # the untyped setup.json of earlier versions
        (
            json.dumps({"triton_src": "/ws/src/triton", "setup_py_dir": "/ws/src/triton", "python": "/p"}),
            "not written by tritondev setup",
        ),
        (json.dumps({**example().to_json(), "schema": 2}), "schema 2"),
        (json.dumps({**example().to_json(), "schema": True}), "schema True"),
        (json.dumps({**example().to_json(), "python": "relative/python"}), "'python' is not an absolute path"),
        (
            json.dumps({**example().to_json(), "install": {"step": "x", "argv": [], "env": {}, "unset": []}}),
            "'install.argv' is empty",
        ),
        (json.dumps({**example().to_json(), "ccache": {"name": "ccache"}}), "'path' is not a non-empty string"),
        ("[" * 100000, "not valid JSON"),
    ],
)
def test_malformed_or_foreign_files_are_refused(content: str | bytes, why: str) -> None:
    assert why in _refused(content).message


def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    state_path(tmp_path).mkdir()  # a folder where the file should be
    with pytest.raises(StateError, match="cannot be read"):
        read_state(tmp_path)


@settings(max_examples=300)
@given(data=json_values)
def test_any_other_json_is_refused(data: object) -> None:
    _refused(json.dumps(data))


@settings(max_examples=300)
@given(raw=st.binary(max_size=200))
def test_any_bytes_are_refused(raw: bytes) -> None:
    _refused(raw)


@settings(max_examples=300)
@given(key=st.sampled_from(sorted(example().to_json())), value=json_values)
def test_one_wrong_field_is_refused_or_read_as_written(key: str, value: object) -> None:
    """Whatever one field is replaced by, the file is either read (and then says what it says) or refused."""
    data = {**example().to_json(), key: value}
    try:
        state = parse_state(json.dumps(data).encode(), WHERE)
    except StateError:
        return
    written = state.to_json()
    if key in PATH_FIELDS:  # a path is read as the same path, and written plainly: "/0/" is "/0"
        assert Path(str(written.pop(key))) == Path(str(data.pop(key)))
    assert written == data


def test_a_path_field_is_read_as_the_path_it_names() -> None:
    data = {**example().to_json(), "llvm_build": "/0/"}
    assert parse_state(json.dumps(data).encode(), WHERE).llvm_build == Path("/0")
