"""Step fingerprints and records: a step runs only when its inputs changed since it last finished.

Each step has a fingerprint: a hash of its inputs (commits, flags, tool versions, environment)
and of the fingerprints of the steps it depends on, so a change re-runs that step and everything
downstream of it and nothing else. The record of a finished step is written atomically to
<workspace>/state/steps/<name>.json only after the step succeeded, and replaced by a "started" mark
before it starts: a step interrupted at any moment (Ctrl-C, kill -9) has no finished record and
runs again next time, and the next run knows it was cut short.

`decide` is the one rule that turns (record, fingerprint, result still there) into a status and a
reason; the plan (bootstrap.pipeline.setup.plan) applies it to every step, `tritondev build` to the
triton-install step.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from bootstrap.core.fsutil import read_json
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import replace_json


class StepStatus(str, Enum):
    """What happened to a step (its JSON value is the plain string)."""

    UP_TO_DATE = "up to date"
    RAN = "ran"
    WOULD_RUN = "would run"

    def __str__(self) -> str:
        return self.value


def fingerprint(inputs: Mapping[str, Any], parents: Mapping[str, str]) -> str:
    blob = json.dumps({"inputs": inputs, "after": dict(sorted(parents.items()))}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class StepOutcome:
    name: str
    status: StepStatus
    reason: str
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "step": self.name,
            "status": self.status.value,
            "reason": self.reason,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class StepRecord:
    """A step's record as stored: finished (with its fingerprint) or only started."""

    fingerprint: str | None  # None: the step started and never finished
    inputs: Mapping[str, Any] = field(default_factory=dict)
    after: Mapping[str, str] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.fingerprint is not None

    @staticmethod
    def parse(data: object) -> StepRecord | None:
        """A record from its JSON; None for anything else (a record we cannot read counts as none)."""
        if not isinstance(data, dict):
            return None
        fp = data.get("fingerprint")
        if isinstance(fp, str):
            inputs, after = data.get("inputs"), data.get("after")
            return StepRecord(fp, inputs if isinstance(inputs, dict) else {}, after if isinstance(after, dict) else {})
        return StepRecord(None) if "started" in data else None


def changed_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Names of the inputs whose values differ (present in one only counts as changed)."""

    def shown(value: Any) -> str:
        return json.dumps(value, sort_keys=True, default=str)

    return [k for k in sorted(set(old) | set(new)) if shown(old.get(k)) != shown(new.get(k))]


def decide(
    record: StepRecord | None,
    fp: str,
    inputs: Mapping[str, Any],
    parents: Mapping[str, str],
    missing: str | None = None,
) -> tuple[StepStatus, str]:
    """Up to date when the record holds this fingerprint and the step's result is still there (`missing`:
    what is gone, e.g. "triton is not installed from this checkout"); else would run, with the reason."""
    if record is not None and record.fingerprint == fp and missing is None:
        return StepStatus.UP_TO_DATE, "inputs unchanged"
    if record is None:
        return StepStatus.WOULD_RUN, "never finished here"
    if not record.finished:
        return StepStatus.WOULD_RUN, "interrupted last time"
    changed = changed_keys(record.inputs, inputs)
    if changed:
        return StepStatus.WOULD_RUN, "changed: " + ", ".join(changed)
    deps = [d for d in parents if record.after.get(d) != parents[d]]
    if deps:
        return StepStatus.WOULD_RUN, "depends on re-run step: " + ", ".join(deps)
    if missing is not None:
        return StepStatus.WOULD_RUN, f"output missing: {missing}"
    return StepStatus.WOULD_RUN, "inputs changed"


@dataclass(frozen=True)
class Records:
    """The step records of one workspace (<workspace>/state/steps/<name>.json)."""

    state_dir: Path

    def path(self, name: str) -> Path:
        return StateFiles(self.state_dir).step(name)

    def load(self, name: str) -> StepRecord | None:
        return StepRecord.parse(read_json(self.path(name)))

    def load_all(self, names: Iterable[str]) -> dict[str, StepRecord]:
        loaded = {name: self.load(name) for name in names}
        return {name: record for name, record in loaded.items() if record is not None}

    def started(self, name: str) -> None:
        """Replace the record by a "started" mark: not done, and the next run knows it was cut short."""
        replace_json(self.path(name), {"started": time.time()})

    def finished(self, name: str, inputs: Mapping[str, Any], after: Mapping[str, str], seconds: float = 0.0) -> str:
        """Record `name` as finished with these inputs and parent fingerprints; returns its fingerprint."""
        fp = fingerprint(inputs, after)
        replace_json(
            self.path(name),
            {
                "fingerprint": fp,
                "inputs": dict(inputs),
                "after": dict(after),
                "finished": time.time(),
                "seconds": round(seconds, 3),
            },
        )
        return fp
