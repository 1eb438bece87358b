"""The last `tritondev setup` asked of a workspace and how it ended: <workspace>/state/last-setup.json.

A successful setup leaves settings.json (what the next run starts from); a failed one leaves nothing
of the kind, so without this record `tritondev doctor` right after it says "No problems found", and a
fix line says `tritondev setup` without the `--triton-src` setup was asked to build (pasted, it would
build PyTorch's pin). The record is written when setup starts (the clone it was asked to build, if
any) and when it ends: done, failed (the step, the error, its fix and log) or interrupted. A record
still saying "running" is a setup that was killed. A setup refused on its input puts the record back as
it was (see `recording`). It holds paths and messages only; messages are
masked as every file tritondev writes is (bootstrap/core/io/writes.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import (
    CommandFailed,
    DirtyCheckout,
    MismatchError,
    ToolMissing,
    TritondevError,
    UsageError,
    WorkspaceLocked,
    WouldLoseData,
)
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import remove_file, replace_bytes, replace_json

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

KIND = "tritondev-last-setup"
OUTCOMES = ("running", "done", "failed", "interrupted")


@dataclass(frozen=True)
class LastSetup:
    triton_src: Path | None  # the clone setup was asked to build (--triton-src), None: a checkout of a pin
    outcome: str  # one of OUTCOMES
    step: str = ""  # the step whose command failed ("" before any command ran)
    error: str = ""
    fix: str = ""
    log: str = ""  # that step's log

    def to_json(self) -> dict[str, object]:
        return {
            "kind": KIND,
            "triton_src": str(self.triton_src) if self.triton_src else None,
            "outcome": self.outcome,
            "step": self.step,
            "error": self.error,
            "fix": self.fix,
            "log": self.log,
        }

    @staticmethod
    def from_json(data: Any) -> LastSetup | None:
        """The record in `data`, or None when it is not one (a damaged file is no reason to fail a command)."""
        if not isinstance(data, dict) or data.get("kind") != KIND or data.get("outcome") not in OUTCOMES:
            return None
        texts = {key: data.get(key) for key in ("step", "error", "fix", "log")}
        if not all(isinstance(v, str) for v in texts.values()):
            return None
        src = data.get("triton_src")
        if src is not None and not (isinstance(src, str) and src.startswith("/") and "\0" not in src):
            return None
        return LastSetup(Path(src) if src else None, str(data["outcome"]), **{k: str(v) for k, v in texts.items()})

    def describe(self) -> str:
        """One line: how the last setup ended, for doctor."""
        asked = f"`tritondev setup --triton-src {self.triton_src}`" if self.triton_src else "`tritondev setup`"
        if self.outcome == "failed":
            where = f" at step {self.step}" if self.step else " before its first step"
            return f"the last {asked} failed{where}: {self.error}"
        if self.outcome == "running":
            return f"the last {asked} did not finish (killed, or still running)"
        return f"the last {asked} was {self.outcome}"


def read_last_setup(state_dir: Path) -> LastSetup | None:
    try:
        text = read_regular(StateFiles(state_dir).last_setup, limit=1 << 20).decode("utf-8")
        return LastSetup.from_json(parse_json(text))
    except (OSError, ValueError, RecursionError, UnicodeDecodeError):
        return None


def asked_clone(ctx: AppContext) -> Path | None:
    """The clone the workspace's setup was last asked to build: the setting (given, or remembered by a
    successful setup), else the record of a setup that did not succeed."""
    if ctx.settings.triton_src is not None:
        return ctx.settings.triton_src
    if any(ctx.settings.source_of(name).given for name in ("triton_commit", "torch_ref")):
        return None  # a commit asked for now: the clone is not the choice
    last = read_last_setup(ctx.workspace.state)
    return last.triton_src if last is not None and last.outcome != "done" else None


# Refusals: the run stopped on its input, the machine or the workspace before changing anything.
_REFUSALS = (UsageError, ToolMissing, MismatchError, DirtyCheckout, WorkspaceLocked, WouldLoseData)


@contextmanager
def recording(ctx: AppContext, steps: Collection[str]) -> Iterator[None]:
    """Record this setup's request while it runs and how it ended (nothing under --dry-run). `steps`: the
    names of setup's steps. A setup that fails before a command of one of them ran, or that was refused
    (bad input, a missing tool, a pin mismatch, a dirty checkout), leaves the record as it was before: bad
    input changes nothing on disk. Writing the record never hides the error the setup ended with."""
    if ctx.dry_run:
        yield
        return
    record = StateFiles(ctx.workspace.state).last_setup
    before = _current(record)
    src = ctx.settings.triton_src
    replace_json(record, LastSetup(src, "running").to_json())
    try:
        yield
    except TritondevError as exc:
        ran = [c for c in ctx.runner.history if c.step in steps]
        if isinstance(exc, _REFUSALS) or not ran:
            _best_effort(lambda: _restore(record, before))
        else:
            log = exc.log_path if isinstance(exc, CommandFailed) and exc.log_path else None
            failed = LastSetup(src, "failed", ran[-1].step, exc.message, exc.fix or "", str(log or ""))
            _best_effort(lambda: replace_json(record, failed.to_json()))
        raise
    except KeyboardInterrupt:
        _best_effort(lambda: replace_json(record, LastSetup(src, "interrupted").to_json()))
        raise
    replace_json(record, LastSetup(src, "done").to_json())


def _current(record: Path) -> bytes | None:
    try:
        return read_regular(record, limit=1 << 20)
    except OSError:
        return None  # none yet (or not a file tritondev wrote: replaced as any record is)


def _restore(record: Path, before: bytes | None) -> None:
    if before is None:
        remove_file(record)
    else:
        replace_bytes(record, before)


def _best_effort(write: Callable[[], None]) -> None:
    """A record written as the setup ends: a full disk or a read-only folder must not replace its error."""
    try:
        write()
    except OSError:
        pass
