"""The parsers of what the in-target scripts answer: any JSON object gives typed facts or BadAnswer.

A script runs in another interpreter with whatever Triton, torch or JAX is there, so its answer is
outside input. Whatever JSON object it prints, the parser either returns typed facts or raises
BadAnswer (which the caller reports as a failed probe); no other exception may escape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.core.target import inside_answers as answers
from bootstrap.core.target.inside import BadAnswer, json_answer
from bootstrap.doctor import answers as doctor_answers
from bootstrap.pipeline.testing.answers import requirements_file

# No example database in the worktree, no deadline on a shared machine.
SETTINGS = settings(database=None, deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def objects_with(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects that use the parser's own keys (random keys would rarely reach the type checks)."""
    return st.dictionaries(st.sampled_from(keys) | st.text(max_size=3), json_values, max_size=len(keys) + 1)


DISTRIBUTION_KEYS = [
    "name",
    "version",
    "owns_triton_files",
    "editable",
    "record_missing",
    "location",
    "installed_at",
    "placeholder",
    "direct_url",
]
PARSERS: list[tuple[Callable[[dict[str, Any]], object], list[str]]] = [
    (answers.environment, ["distributions", "torch_requires", "errors"]),
    (answers.triton_import, ["import_error", "version", "file", "path", "ptxas", "errors"]),
    (doctor_answers.compile_check, ["ok", "stage", "error", "stages"]),
    (doctor_answers.torch_compile, ["ok", "device", "error"]),
    (doctor_answers.jax_triton, ["module", "registrations", "import_errors", "registrations_error"]),
    (answers.triton_version, ["version"]),
    (answers.installed_triton, ["version", "changed_at"]),
    (answers.interpreter, ["version", "prefix", "base_prefix", "purelib", "platlib", "include", "scripts"]),
    (requirements_file, ["requirements", "invalid", "error"]),
]


def only_bad_answers(parse: Callable[[dict[str, Any]], object], data: dict[str, Any]) -> None:
    try:
        parse(data)
    except BadAnswer as exc:
        assert str(exc)  # names what is wrong


@pytest.mark.parametrize(("parse", "keys"), PARSERS, ids=[p.__name__ for p, _ in PARSERS])
@SETTINGS
@given(data=st.data())
def test_any_json_object_parses_or_is_a_bad_answer(
    parse: Callable[[dict[str, Any]], object], keys: list[str], data: st.DataObject
) -> None:
    only_bad_answers(parse, data.draw(objects_with(keys) | st.dictionaries(st.text(), json_values, max_size=5)))


PTXAS_TOOL = objects_with(["binary", "env", "default", "path", "version", "error"])
PTXAS_TOOLS = st.dictionaries(st.text(max_size=5), PTXAS_TOOL | json_values, max_size=3)


@SETTINGS
@given(
    st.lists(objects_with(DISTRIBUTION_KEYS), max_size=3),
    objects_with(["tools", "bundled_dir", "chosen"]),
    PTXAS_TOOLS,
    objects_with(["path", "version", "env"]),
)
def test_nested_objects_parse_or_are_bad_answers(
    dists: list[dict[str, Any]], ptxas: dict[str, Any], tools: dict[str, Any], chosen: dict[str, Any]
) -> None:
    only_bad_answers(answers.environment, {"distributions": dists})
    only_bad_answers(answers.triton_import, {"file": "/t/__init__.py", "ptxas": ptxas})
    only_bad_answers(answers.triton_import, {"ptxas": {"tools": tools, "bundled_dir": "/b", "chosen": chosen}})


@SETTINGS
@given(st.text())
def test_any_printed_text_gives_an_object_or_bad_answer(text: str) -> None:
    try:
        assert isinstance(json_answer(text), dict)
    except BadAnswer:
        pass


distributions = st.fixed_dictionaries(
    {
        "name": st.text(min_size=1),
        "version": st.text(),
        "owns_triton_files": st.integers(0, 10**6),
        "editable": st.booleans(),
        "record_missing": st.booleans(),
        "location": st.text(),
        "installed_at": st.none() | st.floats(0, 2e9) | st.integers(0, 2**31),
        "placeholder": st.booleans(),
        "direct_url": st.none() | st.dictionaries(st.text(), st.text(), max_size=2),
    }
)


@SETTINGS
@given(st.lists(distributions, max_size=4), st.none() | st.lists(st.text(), max_size=3))
def test_well_formed_environment_answers_are_read_whole(dists: list[dict[str, Any]], requires: Any) -> None:
    env = answers.environment({"errors": {}, "distributions": dists, "torch_requires": requires})
    assert env.distributions is not None
    assert [d.name for d in env.distributions] == [d["name"] for d in dists]
    assert [d.owns_triton_files for d in env.distributions] == [d["owns_triton_files"] for d in dists]
    assert env.torch_requires == (None if requires is None else tuple(requires))


def test_the_type_of_each_field_is_checked() -> None:
    good = {
        "name": "triton",
        "version": "3.5.1",
        "owns_triton_files": 12,
        "editable": False,
        "record_missing": False,
        "location": "/sp",
        "installed_at": 1.5,
        "placeholder": False,
    }
    assert answers.environment({"distributions": [good]}).distributions == (
        answers.Distribution("triton", "3.5.1", 12, False, False, "/sp", 1.5, False),
    )
    for key, value in [
        ("owns_triton_files", True),
        ("owns_triton_files", "12"),
        ("version", 3),
        ("editable", 1),
        ("name", None),
        ("installed_at", "yesterday"),
    ]:
        with pytest.raises(BadAnswer, match=key):
            answers.environment({"distributions": [{**good, key: value}]})
    with pytest.raises(BadAnswer, match="distributions"):
        answers.environment({"distributions": {"triton": good}})
    with pytest.raises(BadAnswer, match=r"torch_requires\[1\]"):
        answers.environment({"torch_requires": ["triton==3.5.1", 3]})
    # A fact the script could not gather is absent, and says why in `errors`.
    env = answers.environment({"errors": {"distributions": "OSError: gone"}})
    assert env.distributions is None and env.errors == {"distributions": "OSError: gone"}


def test_triton_answers() -> None:
    failed = answers.triton_import({"errors": {}, "import_error": "RuntimeError: Should never be installed"})
    assert failed.location is None and not failed.namespace and "Should never" in (failed.import_error or "")
    namespace = answers.triton_import({"version": None, "file": None, "path": ["/cwd/triton"]})
    assert namespace.namespace and namespace.location == "/cwd/triton"
    chosen = {"path": "/b/ptxas", "version": "12.8", "env": ["TRITON_PTXAS_PATH"]}
    tool = {"binary": "ptxas", "env": "TRITON_PTXAS_PATH", "default": "/b/ptxas", "path": "/b/ptxas", "version": "12.8"}
    found = answers.triton_import(
        {
            "file": "/sp/triton/__init__.py",
            "path": ["/sp/triton"],
            "version": "3.5.1",
            "ptxas": {"tools": {"ptxas": tool}, "bundled_dir": "/b", "chosen": chosen},
        }
    )
    assert found.ptxas is not None and found.ptxas.chosen == answers.ChosenPtxas(
        "/b/ptxas", "12.8", ("TRITON_PTXAS_PATH",)
    )
    with pytest.raises(BadAnswer, match="chosen"):
        answers.triton_import({"ptxas": {"tools": {}, "bundled_dir": "/b", "chosen": {"path": "/b/ptxas"}}})
    with pytest.raises(BadAnswer, match="tools"):
        answers.triton_import({"ptxas": {"tools": {"ptxas": "ptxas"}, "bundled_dir": "/b"}})


def test_small_answers() -> None:
    assert doctor_answers.compile_check({"ok": True, "stage": "done"}) == doctor_answers.CompileCheck(True, "done", "")
    with pytest.raises(BadAnswer, match="ok"):
        doctor_answers.compile_check({"ok": "yes", "stage": "done"})
    assert doctor_answers.torch_compile({"ok": False, "error": "boom"}) == doctor_answers.TorchCompile(
        False, None, "boom"
    )
    assert doctor_answers.jax_triton({"module": "m", "registrations": ["a"]}) == doctor_answers.JaxTriton("m", ("a",))
    with pytest.raises(BadAnswer, match="registrations"):
        doctor_answers.jax_triton({"module": "m", "registrations": "a"})
    assert answers.triton_version({"version": None}) is None
    assert answers.installed_triton({"version": "3.9.0", "changed_at": 17}) == answers.InstalledTriton("3.9.0", 17.0)
    with pytest.raises(BadAnswer, match="changed_at"):
        answers.installed_triton({"version": "3.9.0", "changed_at": "yesterday"})
    with pytest.raises(BadAnswer, match="version"):
        answers.triton_version({"version": 3.9})


INTERPRETER = {
    "version": "3.12.3",
    "prefix": "/v",
    "base_prefix": "/usr",
    "purelib": "/v/lib/python3.12/site-packages",
    "platlib": "/v/lib/python3.12/site-packages",
    "include": "/usr/include/python3.12",
    "scripts": "/v/bin",
}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("version", "3.12"),
        ("version", ["3", "12", "3"]),
        ("prefix", ["/v"]),
        ("prefix", "relative/path"),
        ("purelib", "/v/\x00lib"),
        ("scripts", 3),
        ("include", None),
        ("platlib", {"a": 1}),
    ],
)
def test_an_interpreter_answer_of_the_wrong_shape_is_a_bad_answer(key: str, value: object) -> None:
    """A --python that answers the probe with valid but wrong-shaped JSON: the caller says it is not
    a working interpreter (exit 2) instead of crashing on a path with a NUL or a list."""
    assert answers.interpreter(INTERPRETER).prefix == "/v"
    with pytest.raises(BadAnswer):
        answers.interpreter({**INTERPRETER, key: value})
