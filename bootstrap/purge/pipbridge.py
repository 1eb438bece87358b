"""pip, asked about the *target* interpreter through the Runner: what it lists as installed.

`python -m pip list -v --format=json` of the target, parsed here. pip's JSON has been a list of
objects with "name" and "version" since pip 9; "location" came with pip 10 and
"editable_project_location" with pip 21.3, so both may be missing. An answer of another shape is a
ValueError, which callers treat as "pip could not tell" (the file scan of site-packages still stands).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core.fsutil import parse_json
from bootstrap.core.process.runner import Runner

# pip's own settings for calls that must never prompt or chat.
PIP_ENV: dict[str, str | None] = {
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_REQUIRE_VIRTUALENV": None,  # a user's "refuse outside a venv" must not block --system
}
# For queries: never prompt, and output in an encoding we decode.
QUERY_ENV: dict[str, str | None] = {**PIP_ENV, "PIP_YES": "true", "PYTHONIOENCODING": "utf8"}


@dataclass(frozen=True)
class Listed:
    """A distribution as the target's pip sees it."""

    name: str
    version: str
    location: str | None
    editable_project_location: str | None


def installed(runner: Runner, python: Path, cwd: Path | None = None) -> dict[str, Listed]:
    """`pip list` of the target interpreter; keys are canonical names. ValueError for an answer not as pip
    writes it; CommandFailed/ToolMissing from the runner when pip cannot run."""
    result = runner.capture(
        [python, "-m", "pip", "list", "-v", "--format=json"], step="pip-query", cwd=cwd, env=QUERY_ENV, timeout=300
    )
    return parse_pip_list(result.stdout)


def parse_pip_list(text: str) -> dict[str, Listed]:
    """pip's `list --format=json` answer by canonical name; ValueError when it is not one."""
    from packaging.utils import canonicalize_name

    data = parse_json(text.strip() or "null")
    if not isinstance(data, list):
        raise ValueError(f"pip list did not answer a JSON list: {text[:200]!r}")
    found: dict[str, Listed] = {}
    for item in data:
        name, version = _text(item, "name"), _text(item, "version")
        if name is None or version is None:
            raise ValueError(f"pip list answered an entry without a name and version: {str(item)[:200]!r}")
        found[canonicalize_name(name)] = Listed(
            name, version, _text(item, "location"), _text(item, "editable_project_location")
        )
    return found


def _text(item: Any, key: str) -> str | None:
    if not isinstance(item, dict):
        raise ValueError(f"pip list answered an entry that is not an object: {str(item)[:200]!r}")
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"pip list answered {key}={value!r}, not a string")
    return value
