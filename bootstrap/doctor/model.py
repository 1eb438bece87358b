"""What a check is and what it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

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


class Figures(Protocol):
    """What a check measured besides its verdict (what ccache did with the remote, the distcc hosts
    proven): a typed value of the check's own, shown in --json as the check's `data`."""

    def to_json(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class CheckOutcome:
    """What a check function returns."""

    status: Status
    summary: str
    details: tuple[str, ...] = ()
    fix: Fix | None = None
    figures: Figures | None = None


def ok(summary: str, *details: str, figures: Figures | None = None) -> CheckOutcome:
    return CheckOutcome(Status.OK, summary, tuple(details), None, figures)


def warn(summary: str, fix: Fix | str | None, *details: str, figures: Figures | None = None) -> CheckOutcome:
    return CheckOutcome(Status.WARN, summary, tuple(details), _fix(fix), figures)


def error(summary: str, fix: Fix | str | None, *details: str, figures: Figures | None = None) -> CheckOutcome:
    return CheckOutcome(Status.ERROR, summary, tuple(details), _fix(fix), figures)


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
    figures: Figures | None = None
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
            # the check's figures (e.g. what ccache did with the remote); may be empty
            "data": self.figures.to_json() if self.figures is not None else {},
        }


@dataclass(frozen=True)
class AppliedFix:
    """One fix `doctor --fix` applied (or would apply), to the checks it resolves."""

    action: str
    status: FixStatus
    message: str
    checks: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "action": self.action,
            "status": self.status.value,
            "message": self.message,
            "checks": list(self.checks),
        }
