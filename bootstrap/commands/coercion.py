"""Option values turned into their Python types without Pydantic, where Typer's own answer is known.

Typer 0.29 coerces every option of the invoked command through a Pydantic TypeAdapter, built when the
command runs, also for an option that was not given: each start of tritondev imported Pydantic and
built a dozen or more adapters (about 0.1 s of a 0.3 s start, measured on the 2-core machine). The
options tritondev declares are almost all `str`, `Path` and `list[str]`, whose coercion needs none of
that, and a few `int`s (`--jobs 8`), which Pydantic turns into the number their plain decimal digits
say. `plain_coercion` gives each parameter of the built click tree a coercion that answers those
directly, exactly as Typer would, and asks Typer's own coercion (built when such a value comes) for
anything else: an `int` written any other way (` 8`, `+8`, `8.0`, `1_000`, each with its own answer
there), a bounded one, a choice, a value of an unexpected type. Where Typer's internals are not as
this module expects (another Typer release), the tree is left as it is: slower, never different.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # another Typer: its own coercion stays
    RuntimeParam = None  # type: ignore[assignment,misc]


def plain_coercion(command: Any) -> Any:
    """`command` (the built click tree of the app), each Typer parameter of it and of its subcommands
    coerced by `_PlainValues`, which is Typer's own coercion for the values it answers itself."""
    if RuntimeParam is None:
        return command
    for param in getattr(command, "params", ()):
        _plain(param)
    make_help_option = command.get_help_option  # made per run, as a parameter of its own

    def get_help_option(ctx: Any) -> Any:
        return _plain(make_help_option(ctx))

    command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        plain_coercion(sub)
    return command


def _plain(param: Any) -> Any:
    descriptor = getattr(param, "type_descriptor", None)
    if isinstance(descriptor, TypeDescriptor) and getattr(param, "_runtime_param", False) is None:
        param._runtime_param = _PlainValues(descriptor.parameter_info, descriptor.annotation, descriptor)
    return param


# Digits that int() and Pydantic read alike: ASCII only (int() also reads other scripts' digits), and
# short of Python's limit on the length of an integer's text.
_PLAIN_INT = re.compile(r"-?[0-9]{1,18}")

if RuntimeParam is not None:

    @dataclass(frozen=True)
    class _PlainValues(RuntimeParam):
        """A given `str`, a `Path` (Typer's checks of it included) and a `list[str]` as Typer makes
        them; anything else through Typer's own coercion. RuntimeParam.coerce answers a missing value
        (None, or () for a repeatable option) before this is asked."""

        descriptor: TypeDescriptor

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            annotation, info = self.annotation, self.parameter_info
            if info.parser is None:
                if annotation is str and isinstance(value, str):
                    return value
                if annotation is Path and info.path_type is None and isinstance(value, str):
                    # Typer's checks of a path (exists, readable, ...) on the text, then its Path.
                    checked = coerce_cli_path(value, info, path_type=None, param=param, ctx=ctx)
                    return Path(checked) if isinstance(checked, str) else checked
                if (
                    annotation == list[str]
                    and isinstance(value, (list, tuple))
                    and all(isinstance(item, str) for item in value)
                ):
                    return list(value)
                if (
                    annotation is int
                    and info.min is None
                    and info.max is None
                    and isinstance(value, str)
                    and _PLAIN_INT.fullmatch(value)
                ):
                    return int(value)
            return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
