"""What tritondev_requirements.py answers (a requirements file read by pip-api in the target), checked and
typed as bootstrap.core.target.inside_answers checks the shared answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bootstrap.core.io.json_fields import Fields
from bootstrap.core.target.inside_answers import parse_answer


@dataclass(frozen=True)
class FileRequirement:
    """One requirement of a requirements file, as pip reads it, and the target's installed version."""

    text: str  # as pip-api gives it back: name, extras, specifier, marker
    name: str
    file: str | None
    line: int | None
    installed: str | None  # None: not installed in the target
    satisfied: bool  # installed, in a version the specifier allows


@dataclass(frozen=True)
class RequirementsFile:
    requirements: tuple[FileRequirement, ...]
    invalid: tuple[tuple[str, int | None, str, str], ...]  # (file, line, the line, why pip refuses it)
    error: str | None = None  # pip-api could not run or read the file

    @property
    def missing(self) -> tuple[FileRequirement, ...]:
        return tuple(r for r in self.requirements if not r.satisfied)


def _requirements_file(data: Fields) -> RequirementsFile:
    error = data.optional_text("error")
    if error is not None:
        return RequirementsFile((), (), error)
    found = tuple(
        FileRequirement(
            item.text("text"),
            item.text("name"),
            item.optional_text("file"),
            item.optional_integer("line"),
            item.optional_text("installed"),
            item.flag("satisfied"),
        )
        for item in data.objects("requirements") or []
    )
    invalid = tuple(
        (i.text("file"), i.optional_integer("line"), i.text("text"), i.text("error"))
        for i in data.objects("invalid") or []
    )
    return RequirementsFile(found, invalid)


def requirements_file(data: Mapping[str, Any]) -> RequirementsFile:
    return parse_answer(_requirements_file, data, "tritondev_requirements.py")
