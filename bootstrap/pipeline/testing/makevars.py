"""The variables of Triton's Makefile, evaluated as make evaluates them for the lines tritondev runs.

Precedence as in GNU make: what tritondev sets stands for a command-line override (`make PYTHON=...
NUM_PROCS=2`: $(PYTHON) the target environment's interpreter, $(BUILD_DIR) setup.py's build folder,
$(ROOT_DIR) the checkout, $(NUM_PROCS) only when the user passes pytest's `-n N`); then the Makefile's
own assignments in order (`NAME := value` and `NAME = value` always, `NAME ?= value` only when the
name is not defined yet, the environment included, `+=` appends); then the environment of the
commands. So `NUM_PROCS ?= 8` and `NUM_GPUS ?= 1` (main, #11098) give 8 and 1 unless the environment
says otherwise, as `make test-unit` would.

Evaluated: `$(NAME)`, `${NAME}`, `$$`, and `$(if COND,THEN[,ELSE])` (3.8's TRITON_KERNELS_PATH). Any
other make function (`$(shell ...)`, `$(realpath ...)`) leaves its variable unevaluated: a line that
uses it is refused with the variable named, a line that does not is unaffected. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bootstrap.core.errors import UsageError

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(\?=|::=|:=|\+=|=)\s?(.*)$")
_NAME = re.compile(r"[A-Za-z0-9_]+")
_DEPTH = 32


@dataclass(frozen=True)
class Assignment:
    name: str
    operator: str  # ?= := ::= += =
    value: str


class Unevaluable(Exception):
    """A value tritondev does not evaluate (a make function other than `if`)."""


def parse_assignments(text: str) -> tuple[Assignment, ...]:
    """The variable assignments at the Makefile's top level (continuation lines joined), in order."""
    found: list[Assignment] = []
    pending = ""
    for raw in text.splitlines():
        if raw.startswith("\t") and not pending:
            continue  # a recipe line
        line = pending + raw
        if line.endswith("\\"):
            pending = line[:-1].rstrip() + " "
            continue
        pending = ""
        match = None if line.lstrip().startswith("#") else _ASSIGN.match(line)
        if match is not None:
            found.append(Assignment(match.group(1), match.group(2), match.group(3).strip()))
    return tuple(found)


def expand(text: str, lookup: Mapping[str, str | Unevaluable], depth: int = 0) -> str:
    """`text` with its variable references put in; Unevaluable for what make would need to run; KeyError
    (the name) for a variable defined nowhere."""
    if depth > _DEPTH:
        raise Unevaluable("references nested too deeply")
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "$" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        after = text[i + 1]
        if after == "$":
            out.append("$")
            i += 2
        elif after in "({":
            end = _closing(text, i + 1)
            out.append(_reference(text[i + 2 : end], lookup, depth))
            i = end + 1
        else:
            raise Unevaluable(f"${after} (an automatic variable)")
    return "".join(out)


def _closing(text: str, start: int) -> int:
    opening = text[start]
    closing = ")" if opening == "(" else "}"
    level = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            level += 1
        elif text[index] == closing:
            level -= 1
            if level == 0:
                return index
    raise Unevaluable(f"an unclosed ${opening}")


def _reference(inner: str, lookup: Mapping[str, str | Unevaluable], depth: int) -> str:
    if _NAME.fullmatch(inner):
        value = lookup[inner]
        if isinstance(value, Unevaluable):
            raise Unevaluable(f"$({inner}) is {value}")
        return value
    function, _, rest = inner.partition(" ")
    if function != "if":
        raise Unevaluable(f"the make function $({function} ...)")
    arguments = _split_arguments(rest)
    condition = expand(arguments[0], lookup, depth + 1).strip()
    chosen = arguments[1] if condition else (arguments[2] if len(arguments) > 2 else "")
    return expand(chosen, lookup, depth + 1)


def _split_arguments(text: str) -> list[str]:
    """A function's arguments: split at the commas outside nested references."""
    parts: list[str] = []
    level = 0
    current: list[str] = []
    for char in text:
        if char in "({":
            level += 1
        elif char in ")}":
            level -= 1
        if char == "," and level == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def evaluate(
    assignments: Sequence[Assignment], overrides: Mapping[str, str], environment: Mapping[str, str]
) -> dict[str, str | Unevaluable]:
    """Every variable's value after the Makefile's assignments: tritondev's overrides win, the
    environment is what `?=` defers to and what an undefined name falls back on."""
    values: dict[str, str | Unevaluable] = dict(environment)
    values.update(overrides)
    for assignment in assignments:
        name = assignment.name
        if name in overrides or (assignment.operator == "?=" and name in values):
            continue
        try:
            value = expand(assignment.value, values)
        except Unevaluable as exc:
            values[name] = exc
            continue
        except KeyError:
            value = expand_or_empty(assignment.value, values)
        if assignment.operator == "+=" and isinstance(values.get(name), str):
            value = f"{values[name]} {value}"
        values[name] = value
    return values


def expand_or_empty(text: str, values: Mapping[str, str | Unevaluable]) -> str:
    """As make expands an assignment: an undefined name is empty there."""

    class Empty(dict[str, "str | Unevaluable"]):
        def __missing__(self, key: str) -> str:
            return ""

    return expand(text, Empty(values))


def expand_line(line: str, values: Mapping[str, str | Unevaluable]) -> str:
    """A recipe line with its variables put in; UsageError naming what tritondev cannot evaluate or
    what nothing defines."""
    try:
        return expand(line, values)
    except Unevaluable as exc:
        raise UsageError(
            f"the Makefile line `{line}` uses {exc}, which tritondev does not evaluate",
            fix="run that target with make yourself, or `tritondev run -- <its command>`",
        ) from None
    except KeyError as exc:
        raise UsageError(
            f"the Makefile line `{line}` uses $({exc.args[0]}), which neither the Makefile, tritondev"
            " nor the environment defines",
            fix=f"set {exc.args[0]} in the environment (make takes it from there), or run that target"
            " with make yourself",
        ) from None
