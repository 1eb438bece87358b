"""The purge journal: what each purge removed and where it came from, so `--restore` can undo it.

<workspace>/state/purge-journal.json holds one entry per purge run (history is kept; `--restore`
uses the last). It is written, atomically, before anything is removed, and updated as the purge
goes, so even a purge that was interrupted or failed half-way can be restored.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from bootstrap.core import fsutil
from bootstrap.core.errors import ConfigError
from bootstrap.core.io import writes
from bootstrap.core.redact import redact
from bootstrap.purge import metadata
from bootstrap.purge.scan import Owner

FORMAT = 1


@dataclass(frozen=True)
class IndexConfig:
    """The package indexes the target's pip is configured with (pip config, PIP_* variables)."""

    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()


def parse_pip_config(text: str) -> IndexConfig:
    """`pip config list` output (`scope.key='value'` lines) -> the index settings pip would use.

    pip's precedence: environment variables over site, user and global files; per-command sections
    (`install.`) over `global.`.
    """
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip("'\"")

    def pick(option: str) -> str | None:
        for scope in (":env:", "install", "global"):
            if f"{scope}.{option}" in values:
                return values[f"{scope}.{option}"]
        return None

    extra = pick("extra-index-url")
    return IndexConfig(pick("index-url") or None, tuple(extra.split()) if extra else ())


@dataclass(frozen=True)
class Source:
    """Where a removed distribution can be installed from again, as its journal entry records it."""

    kind: str  # editable | directory | url | vcs | index
    path: str | None = None  # editable, directory
    url: str | None = None  # url, vcs (credentials masked)
    index_url: str | None = None  # index
    extra_index_urls: tuple[str, ...] = ()  # index

    def to_json(self) -> dict[str, object]:
        if self.kind in ("editable", "directory"):
            return {"kind": self.kind, "path": self.path}
        if self.kind in ("url", "vcs"):
            return {"kind": self.kind, "url": self.url}
        return {"kind": "index", "index_url": self.index_url, "extra_index_urls": list(self.extra_index_urls)}


def source_of(owner: Owner, index: IndexConfig) -> Source:
    """Where `owner` can be installed from again (PEP 610 direct_url.json, else the index). Pure."""
    if owner.editable_path:
        return Source("editable", path=owner.editable_path)
    direct = owner.direct_url or {}
    url = direct.get("url")
    if isinstance(url, str):
        vcs = direct.get("vcs_info")
        if isinstance(vcs, dict) and vcs.get("vcs") and vcs.get("commit_id"):
            return Source("vcs", url=redact(f"{vcs['vcs']}+{url}@{vcs['commit_id']}"))
        if isinstance(direct.get("dir_info"), dict):
            path = metadata.file_url_path(url)
            return Source("directory", path=path) if path else Source("url", url=redact(url))
        return Source("url", url=redact(url))
    return Source(
        "index",
        index_url=redact(index.index_url) if index.index_url else None,
        extra_index_urls=tuple(redact(u) for u in index.extra_index_urls),
    )


def installed_at(owner: Owner) -> float | None:
    """When `owner` was installed (its RECORD's mtime): restore reinstalls in the same order, so the
    distribution installed last wins the shared files again, as it did before the purge."""
    for name in ("RECORD", "installed-files.txt"):
        try:
            return (owner.dist_info / name).stat().st_mtime
        except OSError:
            continue
    return None


@dataclass(frozen=True)
class JournalEntry:
    """One distribution a purge removes, as the journal records it before pip runs."""

    installed_at: float | None
    name: str
    version: str
    source: Source
    editable: bool
    placeholder: bool
    installer: str | None
    dist_info: Path
    # Its RECORD's triton/ lines, saved before pip runs: once pip has deleted that RECORD, they are
    # still the proof that a `~riton` stash an interrupted uninstall left is this distribution's.
    package_files: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "installed_at": self.installed_at,
            "name": self.name,
            "version": self.version,
            "source": self.source.to_json(),
            "editable": self.editable,
            "placeholder": self.placeholder,
            "installer": self.installer,
            "dist_info": str(self.dist_info),
            "package_files": list(self.package_files),
        }


def entry_for(owner: Owner, index: IndexConfig) -> JournalEntry:
    return JournalEntry(
        installed_at(owner),
        owner.name,
        owner.version,
        source_of(owner, index),
        owner.editable,
        owner.placeholder,
        owner.installer,
        owner.dist_info,
        tuple(owner.files),
    )


def recorded_package_files(path: Path, site_packages: Sequence[Path]) -> frozenset[str]:
    """The triton/ files that the RECORDs of distributions earlier purges of this environment removed
    listed (saved in the journal); empty when there is no readable journal."""
    try:
        data = load(path)
    except ConfigError:
        return frozenset()
    wanted = [str(p) for p in site_packages]
    files: set[str] = set()
    for run in data["runs"]:
        target = run.get("target") if isinstance(run, dict) else None
        if not isinstance(target, dict) or target.get("site_packages") != wanted:
            continue
        for entry in run.get("removed") or []:
            listed = entry.get("package_files") if isinstance(entry, dict) else None
            if isinstance(listed, list):
                files.update(f for f in listed if isinstance(f, str) and f.startswith("triton/"))
    return frozenset(files)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def load(path: Path) -> dict[str, Any]:
    """The journal, or an empty one. A file that is not a journal is an error, never overwritten."""
    if not path.exists():
        return {"format": FORMAT, "runs": []}
    data = fsutil.read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise ConfigError(
            f"the purge journal {path} is unreadable or not a purge journal",
            fix=f"move it aside (mv {path} {path}.bad) and run the command again",
        )
    return data


def start_run(path: Path, target: dict[str, object], entries: list[dict[str, object]]) -> str:
    """Record a purge before it removes anything; returns the run's id."""
    journal = load(path)
    # Unique within the journal even for two runs of one process in the same second.
    taken = {r.get("id") for r in journal["runs"] if isinstance(r, dict)}
    base = run_id = f"{now()}-{os.getpid()}"
    n = 1
    while run_id in taken:
        run_id, n = f"{base}.{n}", n + 1
    journal["runs"].append(
        {
            "id": run_id,
            "started": now(),
            "finished": None,
            "status": "started",
            "target": target,
            "removed": entries,
            "leftovers_removed": [],
            "restore": None,
        }
    )
    _write(path, journal)
    return run_id


def update_run(path: Path, run_id: str, **changes: object) -> None:
    journal = load(path)
    for run in journal["runs"]:
        if isinstance(run, dict) and run.get("id") == run_id:
            run.update(changes)
    _write(path, journal)


def _write(path: Path, journal: dict[str, Any]) -> None:
    # Sources are masked when recorded; an error message kept with a run may quote a URL too.
    writes.replace_json(path, journal)


def last_run(path: Path) -> dict[str, Any] | None:
    """The last run that removed distributions (a run that only deleted leftovers has nothing to undo),
    together with the unfinished runs of the same environment right before it.

    A purge interrupted halfway (Ctrl-C, kill -9, a failure) may already have removed some of its
    owners; the purge run again afterwards finds only the rest. Restoring the last run alone would
    lose what the interrupted one removed, so their entries are merged, the earlier ones first and
    each distribution once."""
    runs = [r for r in load(path)["runs"] if isinstance(r, dict) and r.get("removed")]
    if not runs:
        return None
    last = runs[-1]
    merged = [last]
    for run in reversed(runs[:-1]):
        if run.get("status") == "done" or _executable(run) != _executable(last):
            break
        merged.insert(0, run)
    if len(merged) == 1:
        return last
    entries: dict[str, object] = {}
    for run in merged:
        for entry in run["removed"] if isinstance(run["removed"], list) else []:
            name = entry.get("name") if isinstance(entry, dict) else None
            key = canonicalize_name(name) if isinstance(name, str) else repr(entry)
            entries.setdefault(key, entry)
    return {**last, "removed": list(entries.values()), "merged_runs": [r.get("id") for r in merged]}


def _executable(run: dict[str, Any]) -> object:
    target = run.get("target")
    return target.get("executable") if isinstance(target, dict) else None
