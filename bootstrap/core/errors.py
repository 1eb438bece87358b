"""Typed errors and the exit codes they map to.

One table of exit codes for every command (README, "Exit codes"). Code that knows what went
wrong raises one of these; the CLI layer turns it into a one-line message, a fix, and the code.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path

from bootstrap.core.fixlines import repeat_options
from bootstrap.core.fsutil import full_filesystem
from bootstrap.core.redact import redact


class ExitCode(IntEnum):
    OK = 0
    CHECK_FAILED = 1  # doctor found errors, or verification failed
    USAGE = 2  # usage or configuration error
    TOOL_MISSING = 3  # a required tool is missing
    EXTERNAL_FAILED = 4  # an external command failed
    MISMATCH = 5  # pin or version mismatch
    LOCKED_OR_DIRTY = 6  # workspace locked, or a checkout would lose data
    INTERNAL = 70  # a bug in tritondev (crash log written)
    INTERRUPTED = 130  # Ctrl-C


class TritondevError(Exception):
    """An expected failure: a clear message, an optional fix, and an exit code.

    reported: the command's own output already shows this failure (a report that says what failed;
    with --json, the one JSON document, which the exit code marks as failed). The CLI then adds
    nothing, neither a message nor a second JSON document, and only exits with the code.
    """

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(
        self, message: str, *, fix: str | None = None, details: str | None = None, reported: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.details = details
        self.reported = reported

    @property
    def shown_fix(self) -> str | None:
        """The fix as the user sees it: a tritondev command in it repeats their --workspace/--python
        (bootstrap.core.fixlines)."""

        return repeat_options(self.fix)

    def to_json(self) -> dict[str, object]:
        return {
            "error": type(self).__name__,
            "message": self.message,
            "fix": self.shown_fix,
            "exit_code": int(self.exit_code),
        }


class UsageError(TritondevError):
    exit_code = ExitCode.USAGE


class ConfigError(UsageError):
    """A bad setting in tritondev.toml, a TRITONDEV_* variable or an option."""


class ToolMissing(TritondevError):
    exit_code = ExitCode.TOOL_MISSING


class CheckFailed(TritondevError):
    exit_code = ExitCode.CHECK_FAILED


class MismatchError(TritondevError):
    exit_code = ExitCode.MISMATCH


class WorkspaceLocked(TritondevError):
    exit_code = ExitCode.LOCKED_OR_DIRTY


class DirtyCheckout(TritondevError):
    exit_code = ExitCode.LOCKED_OR_DIRTY


class WouldLoseData(TritondevError):
    """Going on would delete or overwrite something that is not tritondev's to change (exit 6)."""

    exit_code = ExitCode.LOCKED_OR_DIRTY


class ExternalError(TritondevError):
    """Something outside tritondev failed that was not a command we ran (network, HTTP)."""

    exit_code = ExitCode.EXTERNAL_FAILED


class Offline(ExternalError):
    """A host name that does not resolve: no network, or no DNS for it. Never retried (it will not go away
    in seconds); exit 4 as every network failure. hosts: the names that did not resolve."""

    def __init__(self, message: str, *, hosts: tuple[str, ...], fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.hosts = hosts


# What a command that ran out of disk says (strerror of ENOSPC and EDQUOT, as C programs, Python, git, pip,
# cmake and ninja print it): whatever else failed with it, the full disk is the cause to name.
FULL_DISK_WORDS = ("No space left on device", "Disk quota exceeded", "[Errno 28]", "[Errno 122]")
FULL_DISK_FIX = (
    "free disk space there (df -h shows what is left), then run the command again: it resumes where it stopped"
)


def disk_full_after(log_path: Path | None, lines: Sequence[str]) -> str | None:
    """Why a failed command failed for a full disk, if it did: a line of its output that says so, or a
    filesystem it wrote to (the workspace that holds its log, the temporary folder) left without room.
    Not every program says it (`python3 -m venv` reports only that ensurepip failed)."""
    said = next((line.strip() for line in lines if any(word in line for word in FULL_DISK_WORDS)), None)
    if said is not None:
        return said
    import tempfile

    return full_filesystem([*([str(log_path)] if log_path else []), tempfile.gettempdir()])


class CommandFailed(TritondevError):
    """An external command exited non-zero (or timed out). When its output says the disk is full, that is
    the diagnosis, whatever fix the caller had in mind for other failures (`python3 -m venv` on a full
    disk is not a missing venv module)."""

    exit_code = ExitCode.EXTERNAL_FAILED

    def __init__(
        self,
        argv: Sequence[str],
        returncode: int | None,
        log_path: Path | None,
        tail: Sequence[str],
        *,
        fix: str | None = None,
        timed_out: bool = False,
    ) -> None:
        self.argv = tuple(argv)
        self.returncode = returncode
        self.log_path = log_path
        self.tail = tuple(tail)
        self.timed_out = timed_out

        shown = redact(" ".join(self.argv))
        what = "timed out" if timed_out else f"failed with exit status {returncode}"
        self.disk_full = None if timed_out else disk_full_after(log_path, self.tail)
        if self.disk_full is not None:
            what = f"failed: the disk is full ({redact(self.disk_full)})"
            fix = FULL_DISK_FIX
        message = f"`{shown}` {what}"
        if log_path is not None:
            message += f" (log: {log_path})"
        details = "\n".join(redact(line) for line in self.tail) if self.tail else None
        super().__init__(message, fix=fix, details=details)

    def to_json(self) -> dict[str, object]:
        data = super().to_json()

        data.update(
            argv=[redact(a) for a in self.argv],
            returncode=self.returncode,
            log=str(self.log_path) if self.log_path else None,
            tail=[redact(line) for line in self.tail],
        )
        return data
