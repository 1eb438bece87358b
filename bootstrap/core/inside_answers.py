"""What the probe scripts of this folder answer, checked and typed.

A script runs in another interpreter, maybe with a broken or unexpected Triton, torch or JAX, so
its JSON object is outside input: each parser here takes that object and returns typed facts, or
raises BadAnswer naming the first field that is not as agreed (missing, null where a value is
needed, or of another type). A caller turns BadAnswer into a failure of its own probe or check.

Keys a script may leave out (a fact it could not gather) are optional here too; a key present with
a value of the wrong type is never silently dropped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bootstrap.core.inside import BadAnswer

# -- reading one field ---------------------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str, where: str, kinds: tuple[type, ...], required: bool) -> Any:
    if key not in data or data[key] is None:
        if required:
            raise BadAnswer(f"{where}: no {key!r}")
        return None
    value = data[key]
    # JSON has no separate bool and int, Python does (bool is an int): keep them apart.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise BadAnswer(f"{where}: {key!r} is {type(value).__name__}, not {names}")
    return value


def text(data: Mapping[str, Any], key: str, where: str) -> str:
    return str(_get(data, key, where, (str,), True))


def optional_text(data: Mapping[str, Any], key: str, where: str) -> str | None:
    value = _get(data, key, where, (str,), False)
    return None if value is None else str(value)


def flag(data: Mapping[str, Any], key: str, where: str) -> bool:
    return bool(_get(data, key, where, (bool,), True))


def count(data: Mapping[str, Any], key: str, where: str) -> int:
    value = _get(data, key, where, (int,), True)
    return int(value)


def optional_number(data: Mapping[str, Any], key: str, where: str) -> float | None:
    value = _get(data, key, where, (int, float), False)
    return None if value is None else float(value)


def optional_mapping(data: Mapping[str, Any], key: str, where: str) -> dict[str, Any] | None:
    value = _get(data, key, where, (dict,), False)
    return None if value is None else dict(value)


def _list_of(data: Mapping[str, Any], key: str, where: str, kind: type, name: str) -> list[Any] | None:
    value = _get(data, key, where, (list,), False)
    if value is None:
        return None
    for index, item in enumerate(value):
        if not isinstance(item, kind):
            raise BadAnswer(f"{where}: {key}[{index}] is {type(item).__name__}, not {name}")
    return list(value)


def optional_texts(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
    """A list of strings, or None when the key is absent or null."""
    value = _list_of(data, key, where, str, "str")
    return None if value is None else tuple(value)


def objects(data: Mapping[str, Any], key: str, where: str) -> list[dict[str, Any]] | None:
    """A list of JSON objects, or None when the key is absent or null."""
    return _list_of(data, key, where, dict, "an object")


def messages(data: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    """{name: message} (the scripts' `errors`): {} when absent."""
    value = optional_mapping(data, key, where) or {}
    for name, message in value.items():
        if not isinstance(message, str):
            raise BadAnswer(f"{where}: {key}[{name!r}] is {type(message).__name__}, not str")
    return value


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
    direct_url: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        """The name as pip compares names: lower case, '-' for '_'."""
        return self.name.lower().replace("_", "-")


@dataclass(frozen=True)
class Environment:
    distributions: tuple[Distribution, ...] | None  # None: the listing failed (errors says why)
    torch_requires: tuple[str, ...] | None  # None: torch is not installed (or the fact failed)
    errors: dict[str, str] = field(default_factory=dict)


def distribution(data: Mapping[str, Any], where: str) -> Distribution:
    return Distribution(
        name=text(data, "name", where),
        version=text(data, "version", where),
        owns_triton_files=count(data, "owns_triton_files", where),
        editable=flag(data, "editable", where),
        record_missing=flag(data, "record_missing", where),
        location=optional_text(data, "location", where) or "",
        installed_at=optional_number(data, "installed_at", where),
        placeholder=flag(data, "placeholder", where),
        direct_url=optional_mapping(data, "direct_url", where),
    )


def environment(data: Mapping[str, Any]) -> Environment:
    where = "tritondev_environment.py"
    listed = objects(data, "distributions", where)
    dists = None
    if listed is not None:
        dists = tuple(distribution(d, f"{where}: distributions[{i}]") for i, d in enumerate(listed))
    return Environment(dists, optional_texts(data, "torch_requires", where), messages(data, "errors", where))


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


def _ptxas(data: Mapping[str, Any], where: str) -> Ptxas:
    tools = {}
    for name, tool in (optional_mapping(data, "tools", where) or {}).items():
        at = f"{where}: tools[{name!r}]"
        if not isinstance(tool, dict):
            raise BadAnswer(f"{at} is {type(tool).__name__}, not an object")
        tools[str(name)] = PtxasTool(
            text(tool, "binary", at), text(tool, "env", at), optional_text(tool, "default", at),
            optional_text(tool, "path", at), optional_text(tool, "version", at), optional_text(tool, "error", at),
        )
    chosen = optional_mapping(data, "chosen", where)
    picked = None
    if chosen is not None:
        at = f"{where}: chosen"
        env = optional_texts(chosen, "env", at) or ()
        picked = ChosenPtxas(text(chosen, "path", at), text(chosen, "version", at), env)
    return Ptxas(tools, text(data, "bundled_dir", where), picked)


def triton_import(data: Mapping[str, Any]) -> TritonImport:
    where = "tritondev_triton.py"
    errors = messages(data, "errors", where)
    failure = optional_text(data, "import_error", where)
    if failure is not None:
        return TritonImport(failure, errors=errors)
    ptxas = optional_mapping(data, "ptxas", where)
    return TritonImport(
        None,
        version=optional_text(data, "version", where),
        file=optional_text(data, "file", where),
        path=optional_texts(data, "path", where) or (),
        ptxas=_ptxas(ptxas, f"{where}: ptxas") if ptxas is not None else None,
        errors=errors,
    )


# -- the smaller probes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CompileCheck:
    """tritondev_compile_check.py: did Triton compile the tiny kernel for the arch."""

    ok: bool
    stage: str  # "import", "compile", "done"
    error: str  # "" when it compiled
    stderr: str = ""  # what the process wrote besides its answer (ptxas and MLIR diagnostics)


def compile_check(data: Mapping[str, Any]) -> CompileCheck:
    where = "tritondev_compile_check.py"
    return CompileCheck(flag(data, "ok", where), text(data, "stage", where), optional_text(data, "error", where) or "")


@dataclass(frozen=True)
class TorchCompile:
    """tritondev_torch_compile.py: a tiny torch.compile against eager."""

    ok: bool
    device: str | None
    error: str | None


def torch_compile(data: Mapping[str, Any]) -> TorchCompile:
    where = "tritondev_torch_compile.py"
    return TorchCompile(
        flag(data, "ok", where), optional_text(data, "device", where), optional_text(data, "error", where)
    )


@dataclass(frozen=True)
class JaxTriton:
    """tritondev_jax.py: the plugin module that loaded and the FFI targets it registers."""

    module: str | None  # None: none of the modules loads
    registrations: tuple[str, ...] | None  # None: the module has no registrations() (or it failed)


def jax_triton(data: Mapping[str, Any]) -> JaxTriton:
    where = "tritondev_jax.py"
    messages(data, "import_errors", where)
    return JaxTriton(optional_text(data, "module", where), optional_texts(data, "registrations", where))


@dataclass(frozen=True)
class InstalledTriton:
    """tritondev_triton_version.py: the target's Triton as its kernel cache sees it."""

    version: str | None  # triton.__version__ from the source; None when triton is not there
    key_changed_at: float | None  # newest mtime of the files Triton's cache key hashes; None: not found


def installed_triton(data: Mapping[str, Any]) -> InstalledTriton:
    where = "tritondev_triton_version.py"
    return InstalledTriton(optional_text(data, "version", where), optional_number(data, "changed_at", where))


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


def _absolute_path(data: Mapping[str, Any], key: str, where: str) -> str:
    value = text(data, key, where)
    if not os.path.isabs(value) or any(ord(ch) < 32 for ch in value):
        raise BadAnswer(f"{where}: {key!r} is not an absolute path: {value[:100]!r}")
    return value


def interpreter(data: Mapping[str, Any]) -> InterpreterFacts:
    where = "tritondev_interpreter.py"
    version = text(data, "version", where)
    parts = version.split(".")
    if len(parts) != 3 or not all(part.isdigit() and part.isascii() for part in parts):
        raise BadAnswer(f"{where}: 'version' is not MAJOR.MINOR.MICRO: {version[:40]!r}")
    paths = {key: _absolute_path(data, key, where)
             for key in ("prefix", "base_prefix", "purelib", "platlib", "include", "scripts")}
    return InterpreterFacts(version=version, **paths)


# -- tritondev_requirements.py ---------------------------------------------------------------------


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


def requirements_file(data: Mapping[str, Any]) -> RequirementsFile:
    where = "tritondev_requirements.py"
    error = optional_text(data, "error", where)
    if error is not None:
        return RequirementsFile((), (), error)
    found = []
    for item in objects(data, "requirements", where) or []:
        line = _get(item, "line", where, (int,), False)
        found.append(FileRequirement(text(item, "text", where), text(item, "name", where),
                                     optional_text(item, "file", where), line, optional_text(item, "installed", where),
                                     flag(item, "satisfied", where)))
    invalid = tuple((text(i, "file", where), _get(i, "line", where, (int,), False), text(i, "text", where),
                     text(i, "error", where)) for i in objects(data, "invalid", where) or [])
    return RequirementsFile(tuple(found), invalid)
