"""The record of a bisect in progress: <workspace>/state/bisect.json.

Written before the first checkout moves and after every step, atomically, so that a bisect stopped
at any moment (Ctrl-C, kill -9, an aborting command) can be resumed without testing a commit again,
or reset: the record names the commits the checkouts started at. `restored` says whether they are
back there (and the starting build installed again); a bisect stopped by Ctrl-C restores them
before it exits, a killed one leaves that to `tritondev bisect resume` or `tritondev bisect reset`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import atomic_write_json
from bootstrap.pipeline.bisect_range import CommitRange, RangeCommit
from bootstrap.pipeline.bisect_search import Verdict

JOURNAL_NAME = "bisect.json"
KIND = "tritondev-bisect"
SCHEMA = 1
KINDS = ("triton", "llvm")
CHECKOUTS = ("triton", "llvm-project")


@dataclass(frozen=True)
class Start:
    """Where a checkout was when the bisect started."""

    commit: str
    branch: str | None  # the branch HEAD was on (None: detached)
    pin_refs: tuple[str, ...] = ()  # refs/tritondev/pins/* it had (the bisect removes only the ones it added)

    def to_json(self) -> dict[str, object]:
        return {"commit": self.commit, "branch": self.branch, "pin_refs": list(self.pin_refs)}


@dataclass(frozen=True)
class StepRecord:
    number: int
    commit: str
    subject: str
    verdict: Verdict
    seconds: float
    llvm_rebuilt: bool
    llvm_commit: str | None
    exit_code: int | None  # the command's (None: it did not run, the commit did not build)
    reason: str
    log: str  # the step's log folder

    def to_json(self) -> dict[str, object]:
        return {
            "step": self.number, "commit": self.commit, "subject": self.subject, "verdict": self.verdict.value,
            "seconds": round(self.seconds, 3), "llvm_rebuilt": self.llvm_rebuilt, "llvm_commit": self.llvm_commit,
            "exit_code": self.exit_code, "reason": self.reason, "log": self.log,
        }


@dataclass(frozen=True)
class Journal:
    kind: str  # "triton" | "llvm"
    good_ref: str
    bad_ref: str
    range: CommitRange
    command: tuple[str, ...]
    cwd: str  # where the command runs (where the bisect was started)
    build_failure: str  # "skip" | "bad"
    start: Mapping[str, Start]  # checkout name -> where it started
    steps: tuple[StepRecord, ...] = ()
    restored: bool = True  # the checkouts are at their starting commits with the starting build installed
    started: float = 0.0
    schema: int = SCHEMA

    @property
    def verdicts(self) -> dict[str, Verdict]:
        return {s.commit: s.verdict for s in self.steps}

    def same_request(self, kind: str, good: str, bad: str, command: Sequence[str], build_failure: str) -> bool:
        """The same bisect asked for again (refs as given): it goes on where it stopped."""
        return (self.kind, self.good_ref, self.bad_ref, self.command, self.build_failure) == (
            kind, good, bad, tuple(command), build_failure)

    def with_step(self, step: StepRecord) -> Journal:
        return replace(self, steps=(*self.steps, step))

    def to_json(self) -> dict[str, object]:
        return {
            "kind_of_file": KIND, "schema": self.schema, "kind": self.kind, "good_ref": self.good_ref,
            "bad_ref": self.bad_ref, "good": self.range.good, "bad": self.range.bad,
            "commits": [c.to_json() for c in self.range.commits], "pins": dict(self.range.pins),
            "command": list(self.command), "cwd": self.cwd, "build_failure": self.build_failure,
            "start": {name: s.to_json() for name, s in self.start.items()},
            "steps": [s.to_json() for s in self.steps], "restored": self.restored, "started": self.started,
        }

    @staticmethod
    def from_json(data: Any) -> Journal:
        """The journal in `data`; ValueError/KeyError/TypeError when it is not one."""
        if not isinstance(data, dict) or data.get("kind_of_file") != KIND or data.get("schema") != SCHEMA:
            raise ValueError("not a bisect record of this tritondev")
        if data["kind"] not in KINDS or data["build_failure"] not in ("skip", "bad"):
            raise ValueError("unknown kind or build-failure policy")
        commits = tuple(RangeCommit(str(c["commit"]), str(c["subject"])) for c in data["commits"])
        pins = {str(k): (None if v is None else str(v)) for k, v in dict(data["pins"]).items()}
        start = {name: Start(str(s["commit"]), s["branch"] if isinstance(s["branch"], str) else None,
                             tuple(str(r) for r in s["pin_refs"])) for name, s in dict(data["start"]).items()}
        steps = tuple(
            StepRecord(int(s["step"]), str(s["commit"]), str(s["subject"]), Verdict(s["verdict"]),
                       float(s["seconds"]), bool(s["llvm_rebuilt"]), s["llvm_commit"], s["exit_code"],
                       str(s["reason"]), str(s["log"]))
            for s in data["steps"]
        )
        command = tuple(str(a) for a in data["command"])
        if not commits or not command or set(start) != set(CHECKOUTS):
            raise ValueError("no commits, no command or no starting commits")
        return Journal(
            kind=data["kind"], good_ref=str(data["good_ref"]), bad_ref=str(data["bad_ref"]),
            range=CommitRange(str(data["good"]), str(data["bad"]), commits, pins), command=command,
            cwd=str(data["cwd"]), build_failure=data["build_failure"], start=start, steps=steps,
            restored=bool(data["restored"]), started=float(data["started"]),
        )


def journal_path(state_dir: Path) -> Path:
    return state_dir / JOURNAL_NAME


def read_journal(state_dir: Path) -> Journal | None:
    """The bisect in progress; None when there is none; UsageError (exit 2) when the file is unreadable."""
    path = journal_path(state_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, str(exc)) from None
    try:
        return Journal.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _unreadable(path, str(exc) or type(exc).__name__) from None


def _unreadable(path: Path, why: str) -> UsageError:
    return UsageError(f"{path} is not a bisect record this tritondev can read ({why})",
                      fix=f"remove {path}; `tritondev setup` then puts the pinned build back")


def write_journal(state_dir: Path, journal: Journal) -> None:
    atomic_write_json(journal_path(state_dir), journal.to_json())


def remove_journal(state_dir: Path) -> None:
    journal_path(state_dir).unlink(missing_ok=True)
