"""A Triton commit's Python build requirements and the binding library they name: pure functions over its
files (`read(path) -> text | None`), as bootstrap.git.layout reads them. `where` is setup.py's folder
("." or "python")."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

ReadFile = Callable[[str], str | None]


def _toml_requires(text: str) -> list[str]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    requires = data.get("build-system", {}).get("requires", [])
    return [r for r in requires if isinstance(r, str)]


def _requirements_lines(text: str) -> list[str]:
    """Requirement lines of a requirements.txt: comments, blank lines and pip options dropped."""
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        out.append(line)
    return out


def build_requires(read: ReadFile, where: str) -> tuple[str, ...]:
    """Build requirements: pyproject.toml [build-system] requires (next to setup.py, else the root)
    and python/requirements.txt, in that order, without duplicates."""
    found: list[str] = []
    for path in dict.fromkeys(("pyproject.toml" if where == "." else f"{where}/pyproject.toml", "pyproject.toml")):
        text = read(path)
        if text is not None:
            found.extend(_toml_requires(text))
            break
    text = read("python/requirements.txt")
    if text is not None:
        found.extend(_requirements_lines(text))
    return tuple(dict.fromkeys(found))


def _requirement_name(requirement: str) -> str:
    match = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1).lower().replace("_", "-") if match else ""


def binding(read: ReadFile, where: str, requires: tuple[str, ...] | None = None) -> str:
    """ "nanobind" or "pybind11" from the build requirements; ≤ 3.1 setup.py downloads pybind11."""
    requires = build_requires(read, where) if requires is None else requires
    names = {_requirement_name(r) for r in requires}
    if "nanobind" in names:
        return "nanobind"
    if "pybind11" in names:
        return "pybind11"
    setup = read("setup.py" if where == "." else f"{where}/setup.py") or ""
    if "nanobind" in setup:
        return "nanobind"
    if "pybind11" in setup:
        return "pybind11"
    return "unknown"
