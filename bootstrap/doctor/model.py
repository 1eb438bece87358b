"""What a check is and what it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from bootstrap.core.fixlines import repeat_options

if TYPE_CHECKING:
    from bootstrap.doctor.facts import Facts


class Status(str, Enum):
    """A check's verdict; the value is what --json shows."""

    OK = "ok"
    WARN = "warn"
    ERROR = "error"
    SKIPPED = "skipped"


class FixStatus(str, Enum):
    """What --fix did about a finding; the value is what --json shows."""

    FIXED = "fixed"
    WOULD_APPLY = "would apply"  # --fix --dry-run
    FAILED = "failed"


@dataclass(frozen=True)
class Applied:
    """What --fix did about a finding, and how it went."""

    status: FixStatus
    message: str

    def __str__(self) -> str:
        return f"{self.status.value}: {self.message}"


@dataclass(frozen=True)
class Fix:
    """How to fix a finding: one line shown inline, and (when safe) what `--fix` applies.

    action names a fixer in bootstrap.doctor.fixers; args are its arguments (JSON-serialisable).
    """

    text: str
    action: str | None = None
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        """The text as shown: a tritondev command in it repeats the user's --workspace/--python."""

        return repeat_options(self.text) or ""

    def to_json(self) -> dict[str, Any]:
        return {"text": self.shown, "auto": self.action is not None, "action": self.action}


@dataclass(frozen=True)
class CheckOutcome:
    """What a check function returns."""

    status: Status
    summary: str
    details: tuple[str, ...] = ()
    fix: Fix | None = None
    data: dict[str, Any] = field(default_factory=dict)


def ok(summary: str, *details: str, **data: Any) -> CheckOutcome:
    return CheckOutcome(Status.OK, summary, tuple(details), None, data)


def warn(summary: str, fix: Fix | str | None, *details: str, **data: Any) -> CheckOutcome:
    return CheckOutcome(Status.WARN, summary, tuple(details), _fix(fix), data)


def error(summary: str, fix: Fix | str | None, *details: str, **data: Any) -> CheckOutcome:
    return CheckOutcome(Status.ERROR, summary, tuple(details), _fix(fix), data)


def skipped(summary: str, *details: str, fix: Fix | str | None = None) -> CheckOutcome:
    return CheckOutcome(Status.SKIPPED, summary, tuple(details), _fix(fix))


def _fix(fix: Fix | str | None) -> Fix | None:
    return Fix(fix) if isinstance(fix, str) else fix


CheckFunction = Callable[["Facts"], CheckOutcome]


@dataclass(frozen=True)
class CheckSpec:
    name: str
    group: str
    title: str
    function: CheckFunction
    slow: bool = False  # submitted first so that it overlaps with the fast ones


@dataclass
class CheckResult:
    name: str
    group: str
    status: Status
    summary: str
    details: tuple[str, ...]
    fix: Fix | None
    duration_ms: int
    data: dict[str, Any] = field(default_factory=dict)
    applied: Applied | None = None  # what --fix did about it

    @property
    def fixed(self) -> bool:
        return self.applied is not None and self.applied.status is FixStatus.FIXED

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "status": self.status.value,
            "summary": self.summary,
            "details": list(self.details),
            "fix": self.fix.shown if self.fix else None,
            "auto_fixable": bool(self.fix and self.fix.action),
            "applied": str(self.applied) if self.applied else None,
            "duration_ms": self.duration_ms,
            "data": self.data,  # the check's figures (e.g. what ccache did with the remote); may be empty
        }
