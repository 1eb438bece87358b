"""What the probe scripts several packages run answer (environment, Triton's import and ptxas, the installed
Triton, the interpreter), checked and typed; `parse_answer`, the one reader the owners' answer models use.

A script runs in another interpreter, maybe with a broken or unexpected Triton, torch or JAX, so
its JSON object is outside input: each parser here takes that object and returns typed facts, or
raises BadAnswer naming the first field that is not as agreed (missing, null where a value is
needed, or of another type). A caller turns BadAnswer into a failure of its own probe or check.

Keys a script may leave out (a fact it could not gather) are optional here too; a key present with
a value of the wrong type is never silently dropped. Fields are read with bootstrap.core.io.json_fields.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bootstrap.core.io.json_fields import BadField, Fields
from bootstrap.core.target.inside import BadAnswer

T = TypeVar("T")


def parse_answer(parse: Callable[[Fields], T], data: Mapping[str, Any], where: str) -> T:
    """`parse` of the script's JSON object, read through core.json_fields: BadAnswer names the field."""
    try:
        return parse(Fields(data, where))
    except BadField as exc:
        raise BadAnswer(str(exc)) from None


# -- tritondev_environment.py ----------------------------------------------------------------------


@dataclass(frozen=True)
class Distribution:
    name: str
    version: str
    owns_triton_files: int  # files it installed under triton/ (1 for an editable or unlisted one)
    editable: bool
    record_missing: bool  # no RECORD / installed-files.txt: pip cannot uninstall it cleanly
    location: str
    installed_at: float | None
    placeholder: bool  # PyPI's pytorch-triton 0.0.1 ("Should never be installed")
    direct_url: dict[str, object] | None = None  # its direct_url.json, as pip wrote it (PEP 610)

    @property
    def key(self) -> str:
        """The name as pip compares names: lower case, '-' for '_'."""
        return self.name.lower().replace("_", "-")


@dataclass(frozen=True)
class Environment:
    distributions: tuple[Distribution, ...] | None  # None: the listing failed (errors says why)
    torch_requires: tuple[str, ...] | None  # None: torch is not installed (or the fact failed)
    errors: dict[str, str] = field(default_factory=dict)


def distribution(data: Fields) -> Distribution:
    direct_url = data.optional_object("direct_url")
    return Distribution(
        name=data.text("name"),
        version=data.text("version"),
        owns_triton_files=data.integer("owns_triton_files"),
        editable=data.flag("editable"),
        record_missing=data.flag("record_missing"),
        location=data.optional_text("location") or "",
        installed_at=data.optional_number("installed_at"),
        placeholder=data.flag("placeholder"),
        direct_url=dict(direct_url.data) if direct_url is not None else None,
    )


def _environment(data: Fields) -> Environment:
    listed = data.objects("distributions")
    dists = None if listed is None else tuple(distribution(d) for d in listed)
    return Environment(dists, data.optional_texts("torch_requires"), data.text_map("errors"))


def environment(data: Mapping[str, Any]) -> Environment:
    return parse_answer(_environment, data, "tritondev_environment.py")


# -- tritondev_triton.py ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PtxasTool:
    """One ptxas Triton knows of (ptxas, ptxas-blackwell, ...): the variable that overrides it."""

    binary: str
    env: str
    default: str | None  # the bundled copy
    path: str | None  # what it resolves to now
    version: str | None
    error: str | None


@dataclass(frozen=True)
class ChosenPtxas:
    """The ptxas Triton's compiler picks for the arch, and the variables that name it."""

    path: str
    version: str
    env: tuple[str, ...]


@dataclass(frozen=True)
class Ptxas:
    tools: dict[str, PtxasTool]
    bundled_dir: str
    chosen: ChosenPtxas | None


@dataclass(frozen=True)
class TritonImport:
    import_error: str | None  # why `import triton` failed; None when it worked
    version: str | None = None
    file: str | None = None
    path: tuple[str, ...] = ()
    ptxas: Ptxas | None = None  # asked for with an arch only
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def location(self) -> str | None:
        """triton/__init__.py, else the first folder of a namespace package; None when it does not import."""
        return self.file or (self.path[0] if self.path else None)

    @property
    def namespace(self) -> bool:
        return self.import_error is None and self.file is None


def _ptxas(data: Fields) -> Ptxas:
    tools = {}
    listed = data.optional_object("tools")
    for name in listed.data if listed is not None else ():
        tool = Fields(listed.data[name], f"{data.where}: tools[{name!r}]") if listed is not None else None
        assert tool is not None
        tools[str(name)] = PtxasTool(
            tool.text("binary"),
            tool.text("env"),
            tool.optional_text("default"),
            tool.optional_text("path"),
            tool.optional_text("version"),
            tool.optional_text("error"),
        )
    chosen = data.optional_object("chosen")
    picked = None
    if chosen is not None:
        picked = ChosenPtxas(chosen.text("path"), chosen.text("version"), chosen.optional_texts("env") or ())
    return Ptxas(tools, data.text("bundled_dir"), picked)


def _triton_import(data: Fields) -> TritonImport:
    errors = data.text_map("errors")
    failure = data.optional_text("import_error")
    if failure is not None:
        return TritonImport(failure, errors=errors)
    ptxas = data.optional_object("ptxas")
    return TritonImport(
        None,
        version=data.optional_text("version"),
        file=data.optional_text("file"),
        path=data.optional_texts("path") or (),
        ptxas=_ptxas(ptxas) if ptxas is not None else None,
        errors=errors,
    )


def triton_import(data: Mapping[str, Any]) -> TritonImport:
    return parse_answer(_triton_import, data, "tritondev_triton.py")


# -- tritondev_triton_version.py and tritondev_interpreter.py ------------------------------------------


@dataclass(frozen=True)
class InstalledTriton:
    """tritondev_triton_version.py: the target's Triton as its kernel cache sees it."""

    version: str | None  # triton.__version__ from the source; None when triton is not there
    key_changed_at: float | None  # newest mtime of the files Triton's cache key hashes; None: not found


def installed_triton(data: Mapping[str, Any]) -> InstalledTriton:
    return parse_answer(
        lambda f: InstalledTriton(f.optional_text("version"), f.optional_number("changed_at")),
        data,
        "tritondev_triton_version.py",
    )


def triton_version(data: Mapping[str, Any]) -> str | None:
    """tritondev_triton_version.py: triton.__version__ from the source; None when triton is not there."""
    return installed_triton(data).version


@dataclass(frozen=True)
class InterpreterFacts:
    """tritondev_interpreter.py: where the target interpreter installs packages."""

    version: str  # "3.12.3"
    prefix: str
    base_prefix: str
    purelib: str
    platlib: str
    include: str
    scripts: str


def _absolute_path(data: Fields, key: str) -> str:
    value = data.text(key)
    if not os.path.isabs(value) or any(ord(ch) < 32 for ch in value):
        raise BadField(f"{data.where}: {key!r} is not an absolute path: {value[:100]!r}", where=data.where)
    return value


def _interpreter(data: Fields) -> InterpreterFacts:
    version = data.text("version")
    parts = version.split(".")
    if len(parts) != 3 or not all(part.isdigit() and part.isascii() for part in parts):
        raise BadField(f"{data.where}: 'version' is not MAJOR.MINOR.MICRO: {version[:40]!r}", where=data.where)
    paths = {
        key: _absolute_path(data, key) for key in ("prefix", "base_prefix", "purelib", "platlib", "include", "scripts")
    }
    return InterpreterFacts(version=version, **paths)


def interpreter(data: Mapping[str, Any]) -> InterpreterFacts:
    return parse_answer(_interpreter, data, "tritondev_interpreter.py")
