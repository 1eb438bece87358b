"""Option values coerced without Pydantic are exactly what Typer's own coercion makes of them, for every
parameter of every command, and anything the plain coercion does not answer still goes through Typer's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from bootstrap.cli import build_app
from bootstrap.commands.coercion import _PlainValues, plain_coercion


def _parameters() -> list[tuple[Any, Any]]:
    """(command, parameter) for every Typer parameter of the app's tree."""
    found: list[tuple[Any, Any]] = []

    def walk(command: Any) -> None:
        found.extend((command, p) for p in command.params if getattr(p, "type_descriptor", None) is not None)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(build_app()))
    return found


PARAMETERS = _parameters()


def _typer_and_plain(command: Any, param: Any, value: Any) -> tuple[Any, Any]:
    """What Typer's own coercion and the plain one make of `value` (an exception is a result too)."""
    ctx = Context(command)
    descriptor = param.type_descriptor
    outcomes = []
    for coercion in (
        build_runtime_param(descriptor),
        _PlainValues(descriptor.parameter_info, descriptor.annotation, descriptor),
    ):
        try:
            outcomes.append(("value", coercion.coerce(value, param=param, ctx=ctx)))
        except BadParameter as exc:
            outcomes.append(("error", exc.format_message()))
    return outcomes[0], outcomes[1]


def test_every_parameter_is_given_the_plain_coercion() -> None:
    command = plain_coercion(typer.main.get_command(build_app()))
    stack, seen = [command], 0
    while stack:
        node = stack.pop()
        for param in node.params:
            if getattr(param, "type_descriptor", None) is not None:
                assert isinstance(param._runtime_param, _PlainValues), param.name
                seen += 1
        stack.extend(getattr(node, "commands", {}).values())
    assert seen == len(PARAMETERS) > 100
    help_option = command.get_help_option(Context(command))
    assert isinstance(help_option._runtime_param, _PlainValues)


_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12)
# Numbers written every way Pydantic reads or refuses them, for the int options.
_NUMBERS = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.from_regex(r"\A[ +\-]?[0-9_]{0,4}(\.[0-9]{0,2})?[ ]?\Z"),
    st.sampled_from(["08", "-0", "00", "1e3", "٣", "１２", "9" * 19, "-" + "9" * 18, " 2", "2\n"]),
)
_VALUES = st.one_of(
    st.none(), _TEXT, st.lists(_TEXT, max_size=3), st.sampled_from(["12", "-3", "x", "", "0"]), _NUMBERS
)


@settings(max_examples=200, deadline=None)
@given(index=st.integers(0, len(PARAMETERS) - 1), value=_VALUES)
def test_the_plain_coercion_makes_what_typer_makes(index: int, value: Any) -> None:
    command, param = PARAMETERS[index]
    if isinstance(value, list) and not (param.multiple or param.nargs == -1):
        value = value[0] if value else None  # click hands a single option one text
    if isinstance(value, str) and (param.multiple or param.nargs == -1):
        value = [value]
    typer_made, plain_made = _typer_and_plain(command, param, value)
    assert plain_made == typer_made


_INT_PARAMETERS = [i for i, (_, p) in enumerate(PARAMETERS) if p.type_descriptor.annotation is int]


@settings(max_examples=300, deadline=None)
@given(index=st.sampled_from(_INT_PARAMETERS), value=_NUMBERS)
def test_an_int_option_gets_what_typer_makes_of_any_number(index: int, value: str) -> None:
    command, param = PARAMETERS[index]
    typer_made, plain_made = _typer_and_plain(command, param, value)
    assert plain_made == typer_made


@pytest.mark.parametrize(("annotation_name", "value"), [("int", "nine"), ("int", "7.0"), ("BuildFailure", "nope")])
def test_what_it_does_not_answer_goes_through_typer(annotation_name: str, value: str) -> None:
    command, param = next(
        (c, p) for c, p in PARAMETERS if getattr(p.type_descriptor.annotation, "__name__", "") == annotation_name
    )
    typer_made, plain_made = _typer_and_plain(command, param, value)
    assert plain_made == typer_made
    assert typer_made[0] == ("value" if value == "7.0" else "error")


def test_an_unreadable_path_is_refused_as_typer_refuses_it(tmp_path: Path) -> None:
    command, param = next((c, p) for c, p in PARAMETERS if p.type_descriptor.is_path)
    missing = str(tmp_path / "no" / "such")
    assert _typer_and_plain(command, param, missing)[1] == ("value", Path(missing))


def test_typer_is_still_the_one_this_was_written_for() -> None:
    """plain_coercion relies on Typer 0.29's internals; pyproject pins <0.30 for this among other things."""
    assert typer.__version__.startswith("0.29.")
