"""The record of a bisect in progress: <workspace>/state/bisect.json.

Written before the first checkout moves and after every step, atomically, so that a bisect stopped
at any moment (Ctrl-C, kill -9, an aborting command) can be resumed without testing a commit again,
or reset: the record names the commits the checkouts started at. `restored` says whether they are
back there (and the starting build installed again); a bisect stopped by Ctrl-C restores them
before it exits, a killed one leaves that to `tritondev bisect resume` or `tritondev bisect reset`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import replace_json
from bootstrap.core.redact import MASK, redact
from bootstrap.git.commit_range import CommitRange, RangeCommit
from bootstrap.git.refs import SHA_RE
from bootstrap.pipeline.bisect.search import Verdict

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
class BisectStep:
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
            "step": self.number,
            "commit": self.commit,
            "subject": self.subject,
            "verdict": self.verdict.value,
            "seconds": round(self.seconds, 3),
            "llvm_rebuilt": self.llvm_rebuilt,
            "llvm_commit": self.llvm_commit,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "log": self.log,
        }


BisectKind = Literal["triton", "llvm"]
BuildFailureMode = Literal["skip", "bad"]  # what a commit that does not build counts as


@dataclass(frozen=True)
class Journal:
    kind: BisectKind
    good_ref: str
    bad_ref: str
    range: CommitRange
    command: tuple[str, ...]
    cwd: str  # where the command runs (where the bisect was started)
    build_failure: BuildFailureMode
    start: Mapping[str, Start]  # checkout name -> where it started
    steps: tuple[BisectStep, ...] = ()
    restored: bool = True  # the checkouts are at their starting commits with the starting build installed
    started: float = 0.0
    schema: int = SCHEMA

    @property
    def verdicts(self) -> dict[str, Verdict]:
        return {s.commit: s.verdict for s in self.steps}

    def same_request(self, kind: str, good: str, bad: str, command: Sequence[str], build_failure: str) -> bool:
        """The same bisect asked for again (refs as given): it goes on where it stopped. The journal keeps
        the command masked (core.writes), so the command given now is compared masked too."""
        return (self.kind, self.good_ref, self.bad_ref, self.command, self.build_failure) == (
            kind,
            good,
            bad,
            tuple(redact(part) for part in command),
            build_failure,
        )

    @property
    def command_was_masked(self) -> bool:
        """Did the command hold a credential (kept masked here, so it cannot be run from the journal)?"""
        return any(MASK in part for part in self.command)

    def with_step(self, step: BisectStep) -> Journal:
        return replace(self, steps=(*self.steps, step))

    def to_json(self) -> dict[str, object]:
        return {
            "kind_of_file": KIND,
            "schema": self.schema,
            "kind": self.kind,
            "good_ref": self.good_ref,
            "bad_ref": self.bad_ref,
            "good": self.range.good,
            "bad": self.range.bad,
            "commits": [c.to_json() for c in self.range.commits],
            "pins": dict(self.range.pins),
            "command": list(self.command),
            "cwd": self.cwd,
            "build_failure": self.build_failure,
            "start": {name: s.to_json() for name, s in self.start.items()},
            "steps": [s.to_json() for s in self.steps],
            "restored": self.restored,
            "started": self.started,
        }

    @staticmethod
    def from_json(data: Any) -> Journal:
        """The journal in `data`; ValueError naming the first field that is not what this schema says."""
        if (
            not isinstance(data, dict)
            or data.get("kind_of_file") != KIND
            or type(data.get("schema")) is not int
            or data["schema"] != SCHEMA
        ):
            raise ValueError("not a bisect record of this tritondev")
        commits = tuple(RangeCommit(_sha(c, "commit"), _text(c, "subject", empty=True)) for c in _list(data, "commits"))
        pins = data.get("pins")
        if not isinstance(pins, dict) or not all(
            SHA_RE.match(k) and (v is None or SHA_RE.match(str(v))) for k, v in pins.items()
        ):
            raise ValueError("'pins' is not a map of commits to LLVM commits")
        starts = data.get("start")
        # Triton always; LLVM's checkout only where there is one (a prebuilt LLVM or --llvm PATH has none).
        if not isinstance(starts, dict) or "triton" not in starts or not set(starts) <= set(CHECKOUTS):
            raise ValueError(f"'start' does not name triton (and at most {' and '.join(CHECKOUTS)})")
        command = tuple(_text({"argument": a}, "argument", empty=True) for a in _list(data, "command"))
        if not commits or not command:
            raise ValueError("no commits or no command")
        return Journal(
            kind=cast(BisectKind, _choice(data, "kind", KINDS)),  # _choice checked it is one of them
            good_ref=_text(data, "good_ref"),
            bad_ref=_text(data, "bad_ref"),
            range=CommitRange(_sha(data, "good"), _sha(data, "bad"), commits, dict(pins)),
            command=command,
            cwd=_text(data, "cwd"),
            build_failure=cast(BuildFailureMode, _choice(data, "build_failure", ("skip", "bad"))),
            start={name: _start(s) for name, s in starts.items()},
            steps=tuple(_step(s) for s in _list(data, "steps")),
            restored=_bool(data, "restored"),
            started=_number(data, "started"),
        )


def _list(data: Any, key: str) -> list[Any]:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, list):
        raise ValueError(f"{key!r} is not a list")
    return value


def _text(data: Any, key: str, *, empty: bool = False) -> str:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str) or (not value and not empty):
        raise ValueError(f"{key!r} is not a string")
    return value


def _sha(data: Any, key: str) -> str:
    value = _text(data, key)
    if not SHA_RE.match(value):
        raise ValueError(f"{key!r} is not a commit id")
    return value


def _choice(data: Any, key: str, choices: Sequence[str]) -> str:
    value = _text(data, key)
    if value not in choices:
        raise ValueError(f"{key!r} is not one of {', '.join(choices)}")
    return value


def _bool(data: Any, key: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise ValueError(f"{key!r} is not true or false")
    return value


def _number(data: Any, key: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{key!r} is not a number")
    return float(value)


def _optional(data: Any, key: str, kind: type) -> Any:
    value = data.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ValueError(f"{key!r} is not a {kind.__name__}")
    return value


def _start(data: Any) -> Start:
    if not isinstance(data, dict):
        raise ValueError("a start is not an object")
    refs = tuple(_text({"ref": r}, "ref") for r in _list(data, "pin_refs"))
    return Start(_sha(data, "commit"), _optional(data, "branch", str), refs)


def _step(data: Any) -> BisectStep:
    if not isinstance(data, dict):
        raise ValueError("a step is not an object")
    verdict = _choice(data, "verdict", tuple(v.value for v in Verdict))
    llvm = _optional(data, "llvm_commit", str)
    return BisectStep(
        int(_number(data, "step")),
        _sha(data, "commit"),
        _text(data, "subject", empty=True),
        Verdict(verdict),
        _number(data, "seconds"),
        _bool(data, "llvm_rebuilt"),
        llvm,
        _optional(data, "exit_code", int),
        _text(data, "reason", empty=True),
        _text(data, "log", empty=True),
    )


def journal_path(state_dir: Path) -> Path:
    return StateFiles(state_dir).bisect_journal


def read_journal(state_dir: Path) -> Journal | None:
    """The bisect in progress; None when there is none; UsageError (exit 2) when the file is unreadable."""
    path = journal_path(state_dir)
    try:
        text = read_regular(path).decode("utf-8")  # a FIFO or a folder there is refused, never waited on
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, str(exc)) from None
    try:
        return Journal.from_json(parse_json(text))
    except (ValueError, RecursionError) as exc:
        raise _unreadable(path, str(exc)) from None


def _unreadable(path: Path, why: str) -> UsageError:
    return UsageError(
        f"{path} is not a bisect record this tritondev can read ({why})",
        fix=f"remove {path}; `tritondev setup` then puts the pinned build back",
    )


def write_journal(state_dir: Path, journal: Journal) -> None:
    replace_json(journal_path(state_dir), journal.to_json())


def remove_journal(state_dir: Path) -> None:
    journal_path(state_dir).unlink(missing_ok=True)
