"""`purge --restore`: read the last purge from the journal, plan the reinstalls, run them.

The journal is a file in the workspace, so it is outside input: a hand-edited, truncated or crafted
one must never crash tritondev or reach pip as something else than a distribution to reinstall. Its
last run is therefore read into typed values first (`last_purge`), each field checked: names and
versions as PEP 508/440 spell them (a name like `--index-url=...` never becomes a pip option),
sources of a known kind with absolute paths, URLs that are not options. Anything else is a
ConfigError (exit 2) naming the field, before anything runs.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import ConfigError, ExternalError, ToolMissing
from bootstrap.core.io.json_fields import BadField, Fields
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.purge import journal, metadata, scan
from bootstrap.purge.envlock import environment_lock
from bootstrap.purge.pipbridge import PIP_ENV

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,200}[A-Za-z0-9])?$")  # PEP 508
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+!_-]{0,100}$")  # PEP 440, and local versions
_KINDS = ("editable", "directory", "url", "vcs", "index")


class BadJournal(ConfigError):
    def __init__(self, where: str, problem: str) -> None:
        super().__init__(
            f"the purge journal {where} is not as tritondev writes it: {problem}",
            fix=f"move it aside (mv {where} {where}.bad); reinstall by hand what the last purge removed",
        )


@dataclass(frozen=True)
class Removed:
    """One distribution a purge removed, as its journal entry says."""

    name: str
    version: str
    installed_at: float | None
    placeholder: bool
    kind: str  # editable | directory | url | vcs | index
    path: str | None = None  # editable, directory
    url: str | None = None  # url, vcs
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class PurgeRun:
    id: str
    executable: Path  # the target's interpreter
    removed: tuple[Removed, ...]


def _text(data: Fields, key: str, *, required: bool = True) -> str | None:
    value = data.text(key) if required else data.optional_text(key)
    if value is not None and (not value or any(ord(ch) < 32 for ch in value)):
        raise BadField(f"{data.where}: {key!r} is {value[:60]!r}", where=data.where)
    return value


def _absolute(data: Fields, key: str) -> str:
    value = _text(data, key)
    assert value is not None
    if not os.path.isabs(value):
        raise BadField(f"{data.where}: {key!r} is not an absolute path: {value[:80]!r}", where=data.where)
    return value


def _not_option(data: Fields, key: str, *, required: bool = True) -> str | None:
    value = _text(data, key, required=required)
    if value is not None and value.startswith("-"):
        raise BadField(f"{data.where}: {key!r} starts with '-': {value[:80]!r}", where=data.where)
    return value


def _removed(entry: Fields) -> Removed:
    where = entry.where
    name, version = _text(entry, "name"), _text(entry, "version")
    assert name is not None and version is not None
    if not _NAME.match(name):
        raise BadField(f"{where}: name {name[:80]!r} is not a distribution name", where=where)
    if not _VERSION.match(version):
        raise BadField(f"{where}: version {version[:80]!r} is not a version", where=where)
    installed_at, placeholder = entry.optional_number("installed_at"), entry.optional_flag("placeholder")
    source = entry.optional_object("source") or Fields({"kind": "index"}, f"{where}: source")
    kind = source.optional_text("kind")
    if kind not in _KINDS:
        raise BadField(f"{source.where}: 'kind' is not one of {', '.join(_KINDS)}", where=source.where)
    extras = source.texts("extra_index_urls")
    if any(url.startswith("-") for url in extras):
        raise BadField(f"{source.where}: 'extra_index_urls' is not a list of URLs", where=source.where)
    return Removed(
        name,
        version,
        installed_at,
        placeholder,
        kind,
        path=_absolute(source, "path") if kind in ("editable", "directory") else None,
        url=_not_option(source, "url") if kind in ("url", "vcs") else None,
        index_url=_not_option(source, "index_url", required=False),
        extra_index_urls=extras,
    )


def read_run(run: object, where: str) -> PurgeRun:
    """A journal run as typed values; BadJournal naming the first field that is not as written."""
    try:
        fields = Fields(run, "the last run")
        target = fields.object("target")
        entries = tuple(_removed(entry) for entry in fields.objects("removed") or ())
        if not fields.has("removed"):
            raise BadField("the last run: no 'removed'", where="the last run")
        return PurgeRun(str(_text(fields, "id")), Path(_absolute(target, "executable")), entries)
    except BadField as exc:
        raise BadJournal(where, str(exc)) from None


def last_purge(path: Path) -> PurgeRun | None:
    """The last run that removed distributions, read and checked; None when there is none."""
    found = journal.last_run(path)
    return None if found is None else read_run(found, str(path))


@dataclass(frozen=True)
class RestoreStep:
    """One distribution to bring back: pip arguments, or why it is skipped or cannot be restored."""

    name: str
    version: str
    pip_args: tuple[str, ...] | None  # `python -m pip ARGS`; None: nothing to run
    skip: str | None = None  # not needed (already there, a placeholder)
    cannot: str | None = None  # needed but its source is gone

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "pip_args": [redact(a) for a in self.pip_args] if self.pip_args else None,
            "skip": self.skip,
            "cannot": self.cannot,
        }


def plan_restore(removed: tuple[Removed, ...], installed: Mapping[str, str]) -> list[RestoreStep]:
    """What `--restore` does, given `installed` (canonical name -> version). Pure apart from checking
    that local sources still exist."""
    from packaging.utils import canonicalize_name

    steps = []
    # Oldest install first, so the one installed last wins shared files again; entries without a
    # time keep their place at the start.
    for entry in sorted(removed, key=lambda e: e.installed_at or 0.0):
        name, version = entry.name, entry.version
        if installed.get(canonicalize_name(name)) == version:
            steps.append(RestoreStep(name, version, None, skip=f"{name} {version} is installed"))
        elif entry.placeholder:
            why = "PyPI placeholder whose import only raises 'Should never be installed'; not reinstalled"
            steps.append(RestoreStep(name, version, None, skip=why))
        else:
            steps.append(_step(entry))
    return steps


def _step(entry: Removed) -> RestoreStep:
    name, version, base = entry.name, entry.version, ("install", "--no-deps")
    if entry.path is not None:
        if not Path(entry.path).is_dir():
            return RestoreStep(name, version, None, cannot=f"its project folder {entry.path} no longer exists")
        return RestoreStep(name, version, (*base, *(("-e",) if entry.kind == "editable" else ()), entry.path))
    if entry.url is not None:
        local = metadata.file_url_path(entry.url)
        if "***" in entry.url:
            return RestoreStep(name, version, None, cannot=f"its URL carried credentials: {entry.url}")
        if local is not None and not Path(local).exists():
            return RestoreStep(name, version, None, cannot=f"{local} no longer exists")
        return RestoreStep(name, version, (*base, entry.url))
    args = [*base, f"{name}=={version}"]
    if entry.index_url is not None and "***" not in entry.index_url:
        args += ["--index-url", entry.index_url]
    for extra in entry.extra_index_urls:
        if "***" not in extra:
            args += ["--extra-index-url", extra]
    return RestoreStep(name, version, tuple(args))


@dataclass
class RestoreReport:
    run_id: str | None
    restored: list[RestoreStep] = field(default_factory=list)
    skipped: list[RestoreStep] = field(default_factory=list)
    failed: list[RestoreStep] = field(default_factory=list)  # `cannot` says why

    def to_json(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "restored": [s.to_json() for s in self.restored],
            "skipped": [s.to_json() for s in self.skipped],
            "failed": [s.to_json() for s in self.failed],
        }


def installed_versions(target: TargetPython) -> dict[str, str]:
    from packaging.utils import canonicalize_name

    return {
        canonicalize_name(d.name): d.version for d in scan.read_site_packages(target.site_packages) if d.has_metadata
    }


def execute_restore(
    run: PurgeRun, steps: list[RestoreStep], target: TargetPython, runner: Runner, journal_path: Path
) -> RestoreReport:
    """Reinstall with the target's pip; every failure is reported, none stops the others. One purge or
    restore of an environment at a time (envlock.py)."""
    if runner.dry_run:
        return _execute_restore(run, steps, target, runner, journal_path)
    with environment_lock(target.site_packages[0], "restore"):
        return _execute_restore(run, steps, target, runner, journal_path)


def _execute_restore(
    run: PurgeRun, steps: list[RestoreStep], target: TargetPython, runner: Runner, journal_path: Path
) -> RestoreReport:
    report = RestoreReport(run_id=run.id)
    for step in steps:
        if step.skip:
            report.skipped.append(step)
            continue
        if step.pip_args is None:
            report.failed.append(step)
            continue
        try:
            result = runner.run(
                [target.executable, "-m", "pip", *step.pip_args],
                step="purge-restore",
                env=PIP_ENV,
                cwd=target.prefix,
                check=False,
            )
        except ToolMissing as exc:
            report.failed.append(dataclasses.replace(step, cannot=exc.message))
            continue
        if result.ok:
            report.restored.append(step)
        else:
            tail = (result.stdout + result.stderr).strip().splitlines()[-3:]
            report.failed.append(dataclasses.replace(step, cannot="pip install failed: " + " | ".join(tail)))
    if not runner.dry_run:
        journal.update_run(journal_path, run.id, restore={"at": journal.now(), **report.to_json()})
    return report


class RestoreIncomplete(ExternalError):
    """Some removed distributions could not be reinstalled (exit 4); --json carries the report."""

    def __init__(self, report: RestoreReport) -> None:
        names = ", ".join(f"{f.name} {f.version}" for f in report.failed)
        super().__init__(
            f"could not restore {names}",
            fix="see the reasons above; reinstall those by hand with the target's pip",
        )
        self.report = report

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), **self.report.to_json()}


def restore_failed(report: RestoreReport) -> RestoreIncomplete | None:
    return RestoreIncomplete(report) if report.failed else None
