"""`purge --restore`: read the last purge from the journal, plan the reinstalls, run them.

The journal is a file in the workspace, so it is outside input: a hand-edited, truncated or crafted
one must never crash tritondev or reach pip as something else than a distribution to reinstall. Its
last run is therefore read into typed values first (`last_purge`), each field checked: names and
versions as PEP 508/440 spell them (a name like `--index-url=...` never becomes a pip option),
sources of a known kind with absolute paths, URLs that are not options. Anything else is a
ConfigError (exit 2) naming the field, before anything runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bootstrap.core.errors import ConfigError, ExternalError, ToolMissing
from bootstrap.core.interpreter import TargetPython
from bootstrap.core.redact import redact
from bootstrap.core.runner import Runner
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


def _text(data: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or any(ord(ch) < 32 for ch in value):
        raise ValueError(f"{where}.{key} is {type(value).__name__ if not isinstance(value, str) else repr(value)[:60]}")
    return value


def _absolute(data: Mapping[str, Any], key: str, where: str) -> str:
    value = _text(data, key, where)
    assert value is not None
    if not os.path.isabs(value):
        raise ValueError(f"{where}.{key} is not an absolute path: {value[:80]!r}")
    return value


def _not_option(value: str | None, what: str) -> str | None:
    if value is not None and value.startswith("-"):
        raise ValueError(f"{what} starts with '-': {value[:80]!r}")
    return value


def _removed(entry: object, where: str) -> Removed:
    if not isinstance(entry, dict):
        raise ValueError(f"{where} is {type(entry).__name__}, not an object")
    name, version = _text(entry, "name", where), _text(entry, "version", where)
    assert name is not None and version is not None
    if not _NAME.match(name):
        raise ValueError(f"{where}.name {name[:80]!r} is not a distribution name")
    if not _VERSION.match(version):
        raise ValueError(f"{where}.version {version[:80]!r} is not a version")
    installed_at = entry.get("installed_at")
    if installed_at is not None and (isinstance(installed_at, bool) or not isinstance(installed_at, (int, float))):
        raise ValueError(f"{where}.installed_at is not a number")
    placeholder = entry.get("placeholder", False)
    if not isinstance(placeholder, bool):
        raise ValueError(f"{where}.placeholder is not true or false")
    source = entry.get("source") or {"kind": "index"}
    if not isinstance(source, dict) or source.get("kind") not in _KINDS:
        raise ValueError(f"{where}.source is not one of the kinds {', '.join(_KINDS)}")
    kind, at = str(source["kind"]), f"{where}.source"
    extras = source.get("extra_index_urls") or []
    if not isinstance(extras, list) or not all(isinstance(u, str) and not u.startswith("-") for u in extras):
        raise ValueError(f"{at}.extra_index_urls is not a list of URLs")
    return Removed(
        name, version, None if installed_at is None else float(installed_at), placeholder, kind,
        path=_absolute(source, "path", at) if kind in ("editable", "directory") else None,
        url=_not_option(_text(source, "url", at), f"{at}.url") if kind in ("url", "vcs") else None,
        index_url=_not_option(_text(source, "index_url", at, required=False), f"{at}.index_url"),
        extra_index_urls=tuple(extras),
    )


def read_run(run: object, where: str) -> PurgeRun:
    """A journal run as typed values; BadJournal naming the first field that is not as written."""
    try:
        if not isinstance(run, dict):
            raise ValueError(f"the last run is {type(run).__name__}, not an object")
        target = run.get("target")
        if not isinstance(target, dict):
            raise ValueError("its target is not an object")
        removed = run.get("removed")
        if not isinstance(removed, list):
            raise ValueError("its 'removed' is not a list")
        entries = tuple(_removed(entry, f"removed[{i}]") for i, entry in enumerate(removed))
        return PurgeRun(str(_text(run, "id", "run")), Path(_absolute(target, "executable", "target")), entries)
    except ValueError as exc:
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
    restored: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, object]] = field(default_factory=list)
    failed: list[dict[str, object]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"run_id": self.run_id, "restored": self.restored, "skipped": self.skipped, "failed": self.failed}


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
            report.skipped.append(step.to_json())
            continue
        if step.pip_args is None:
            report.failed.append(step.to_json())
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
            report.failed.append({**step.to_json(), "cannot": exc.message})
            continue
        if result.ok:
            report.restored.append(step.to_json())
        else:
            tail = (result.stdout + result.stderr).strip().splitlines()[-3:]
            report.failed.append({**step.to_json(), "cannot": "pip install failed: " + " | ".join(tail)})
    if not runner.dry_run:
        journal.update_run(journal_path, run.id, restore={"at": journal.now(), **report.to_json()})
    return report


class RestoreIncomplete(ExternalError):
    """Some removed distributions could not be reinstalled (exit 4); --json carries the report."""

    def __init__(self, report: RestoreReport) -> None:
        names = ", ".join(f"{f['name']} {f['version']}" for f in report.failed)
        super().__init__(
            f"could not restore {names}",
            fix="see the reasons above; reinstall those by hand with the target's pip",
        )
        self.report = report

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), **self.report.to_json()}


def restore_failed(report: RestoreReport) -> RestoreIncomplete | None:
    return RestoreIncomplete(report) if report.failed else None
