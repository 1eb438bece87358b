"""The step engine: run a step only when its inputs changed since it last finished.

Each step has a fingerprint: a hash of its inputs (commits, flags, tool versions, environment)
and of the fingerprints of the steps it depends on, so a change re-runs that step and everything
downstream of it and nothing else. The record of a finished step is written atomically to
<workspace>/state/steps/<name>.json only after the step succeeded, and removed before it starts:
a step interrupted at any moment (Ctrl-C, kill -9) has no record and runs again next time.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bootstrap.core.fsutil import atomic_write_json, read_json

UP_TO_DATE = "up to date"
RAN = "ran"
WOULD_RUN = "would run"


def fingerprint(inputs: Mapping[str, Any], parents: Mapping[str, str]) -> str:
    blob = json.dumps({"inputs": inputs, "after": dict(sorted(parents.items()))}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class Outcome:
    name: str
    status: str  # UP_TO_DATE | RAN | WOULD_RUN
    reason: str
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {"step": self.name, "status": self.status, "reason": self.reason, "seconds": round(self.seconds, 3)}


def _changed(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> list[str]:
    if old is None:
        return []
    keys = sorted(set(old) | set(new))
    return [k for k in keys if json.dumps(old.get(k), sort_keys=True, default=str) != json.dumps(
        new.get(k), sort_keys=True, default=str)]


@dataclass
class Steps:
    state_dir: Path
    dry_run: bool = False
    fingerprints: dict[str, str] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)

    def record_path(self, name: str) -> Path:
        return self.state_dir / "steps" / f"{name}.json"

    def stored(self, name: str) -> dict[str, Any] | None:
        data = read_json(self.record_path(name))
        return data if isinstance(data, dict) else None

    def fingerprint_of(self, name: str, inputs: Mapping[str, Any], after: Sequence[str] = ()) -> str:
        return fingerprint(inputs, {dep: self.fingerprints.get(dep, "") for dep in after})

    def is_current(
        self, name: str, inputs: Mapping[str, Any], *, after: Sequence[str] = (), outputs: Sequence[Path] = ()
    ) -> bool:
        record = self.stored(name)
        fp = self.fingerprint_of(name, inputs, after)
        return bool(record and record.get("fingerprint") == fp and all(p.exists() for p in outputs))

    def run(
        self,
        name: str,
        inputs: Mapping[str, Any],
        action: Callable[[], object],
        *,
        after: Sequence[str] = (),
        outputs: Sequence[Path] = (),
        check: Callable[[], bool] | None = None,
        force: bool = False,
        why: str | None = None,
    ) -> Outcome:
        """Run `action` unless the step's fingerprint matches its record and its outputs exist.

        check: a further test that the step's result is still in place (e.g. a package still installed).
        """
        fp = self.fingerprint_of(name, inputs, after)
        self.fingerprints[name] = fp
        record = self.stored(name)
        missing = [str(p) for p in outputs if not p.exists()]
        if check is not None and record is not None and record.get("fingerprint") == fp and not missing:
            if not check():
                missing.append(f"the result of {name}")
        if not force and record is not None and record.get("fingerprint") == fp and not missing:
            outcome = Outcome(name, UP_TO_DATE, "inputs unchanged")
            self.outcomes.append(outcome)
            return outcome
        reason = why if (force and why) else self._reason(record, inputs, after, missing, force)
        if self.dry_run:
            outcome = Outcome(name, WOULD_RUN, reason)
            action()
            self.outcomes.append(outcome)
            return outcome
        path = self.record_path(name)
        # "started" without a fingerprint: not done, and the next run knows this one was cut short.
        atomic_write_json(path, {"started": time.time()})
        started = time.monotonic()
        action()
        seconds = time.monotonic() - started
        atomic_write_json(
            path,
            {"fingerprint": fp, "inputs": dict(inputs), "after": {d: self.fingerprints.get(d, "") for d in after},
             "finished": time.time(), "seconds": round(seconds, 3)},
        )
        outcome = Outcome(name, RAN, reason, seconds)
        self.outcomes.append(outcome)
        return outcome

    def remember(self, name: str, inputs: Mapping[str, Any], *, after: Sequence[str] = ()) -> None:
        """Record `name` as finished with `inputs` (a state observed rather than produced by an action)."""
        if self.dry_run:
            return
        fp = self.fingerprint_of(name, inputs, after)
        atomic_write_json(
            self.record_path(name),
            {"fingerprint": fp, "inputs": dict(inputs), "after": {d: self.fingerprints.get(d, "") for d in after},
             "finished": time.time(), "seconds": 0.0},
        )

    def was_interrupted(self, name: str) -> bool:
        """Did a run of `name` start and never finish (killed, interrupted, failed)?"""
        record = self.stored(name)
        return bool(record and "started" in record and "fingerprint" not in record)

    def forget(self, name: str) -> None:
        """Drop a step's record (its output was removed or is known to be stale)."""
        if not self.dry_run:
            self.record_path(name).unlink(missing_ok=True)

    def _reason(
        self,
        record: Mapping[str, Any] | None,
        inputs: Mapping[str, Any],
        after: Sequence[str],
        missing: Sequence[str],
        force: bool,
    ) -> str:
        if force:
            return "forced"
        if record is None:
            return "never finished here"
        if "fingerprint" not in record:
            return "interrupted last time"
        changed = _changed(record.get("inputs"), inputs)
        if changed:
            return "changed: " + ", ".join(changed)
        old_after = record.get("after") or {}
        deps = [d for d in after if old_after.get(d) != self.fingerprints.get(d, "")]
        if deps:
            return "depends on re-run step: " + ", ".join(deps)
        if missing:
            return "output missing: " + ", ".join(missing)
        return "inputs changed"

    @property
    def all_up_to_date(self) -> bool:
        return all(o.status == UP_TO_DATE for o in self.outcomes)
