"""pip-api, run against the *target* interpreter and through the Runner.

pip-api lists distributions by running `python -m pip list -v --format=json` in a subprocess of its
own (module `pip_api._call`, interpreter from $PIPAPI_PYTHON_LOCATION, else tritondev's own), and
it already does so once at import time to read pip's version. Both would start a process outside
bootstrap/core/runner.py and, by default, ask the wrong interpreter. So before pip-api is imported its
`_call` module is replaced by `_call` below, which hands the same pip arguments to `Runner.run`
with the target's python. pip-api keeps doing what it is good at (parsing pip's output into
Distribution objects, across pip versions); the process rule and the target both hold.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core.runner import Runner

# pip's own settings for calls that must never prompt or chat.
PIP_ENV: dict[str, str | None] = {
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_REQUIRE_VIRTUALENV": None,  # a user's "refuse outside a venv" must not block --system
}
# What pip-api sets for its own calls: never prompt, and output it can decode.
QUERY_ENV: dict[str, str | None] = {**PIP_ENV, "PIP_YES": "true", "PYTHONIOENCODING": "utf8"}


@dataclass(frozen=True)
class _Active:
    runner: Runner
    python: Path
    cwd: Path | None


_ACTIVE: list[_Active] = []


def _call(*args: str, cwd: str | None = None) -> str:
    """Stand-in for pip_api._call.call: `python -m pip ARGS` of the active target, via the runner."""
    if not _ACTIVE:
        raise RuntimeError("pip-api may only be used inside bootstrap.purge.pipbridge.target()")
    active = _ACTIVE[-1]
    result = active.runner.run(
        [active.python, "-m", "pip", *args],
        step="pip-query",
        probe=True,
        cwd=cwd or active.cwd,
        env=QUERY_ENV,
        timeout=300,
    )
    return result.stdout


def _load() -> Any:
    if "pip_api" not in sys.modules:
        shim = types.ModuleType("pip_api._call")
        shim.call = _call  # type: ignore[attr-defined]
        sys.modules["pip_api._call"] = shim
    import pip_api
    import pip_api._installed_distributions
    import pip_api._version

    # Also covers a pip_api imported before this module: every user of `call` is re-pointed.
    for module in (pip_api._installed_distributions, pip_api._version, sys.modules["pip_api._call"]):
        setattr(module, "call", _call)  # noqa: B010 (mypy: the stubs do not declare `call`)
    return pip_api


@contextmanager
def target(runner: Runner, python: Path, cwd: Path | None = None) -> Iterator[Any]:
    """pip-api bound to `python` for the duration of the block; yields the pip_api module."""
    _ACTIVE.append(_Active(runner, python, cwd))
    try:
        yield _load()
    finally:
        _ACTIVE.pop()


@dataclass(frozen=True)
class Listed:
    """A distribution as the target's pip sees it."""

    name: str
    version: str
    location: str | None
    editable_project_location: str | None


def installed(runner: Runner, python: Path, cwd: Path | None = None) -> dict[str, Listed]:
    """`pip list` of the target interpreter, parsed by pip-api; keys are canonical names."""
    from packaging.utils import canonicalize_name

    with target(runner, python, cwd) as pip_api:
        dists = pip_api.installed_distributions()
    return {
        canonicalize_name(d.name): Listed(
            d.name,
            str(d.version),
            getattr(d, "location", None),
            getattr(d, "editable_project_location", None),
        )
        for d in dists.values()
    }
