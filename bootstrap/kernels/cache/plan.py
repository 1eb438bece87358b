"""What to remove from the kernel cache, and which entries are stale. Pure: no process, nothing deleted.

Foreign folders (names that are not Triton cache keys) are never planned, whatever the options say.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bootstrap.kernels.cache.scan import KERNEL, Entry
from bootstrap.kernels.cache.units import human_age, human_size


def now() -> float:
    """The time ages are measured against (one reading per command, so that plan and report agree)."""
    return time.time()


def stale_reasons(entry: Entry, installed_version: str | None, local_targets: Sequence[str]) -> list[str]:
    """Why a kernel is stale: built by another Triton than the installed one, or for a GPU that is not
    here (empty: fresh, or not a kernel).

    installed_version: `triton.__version__` of the target environment (None: unknown, no check).
    local_targets: targets of the GPUs present ("cuda:90", "hip:gfx942"); empty: no GPU, no check.
    """
    reasons: list[str] = []
    if entry.kind != KERNEL:
        return reasons
    if installed_version and entry.triton_version and entry.triton_version != installed_version:
        reasons.append(f"built by Triton {entry.triton_version}, installed is {installed_version}")
    if local_targets and entry.target and entry.target not in local_targets:
        reasons.append(f"built for {entry.target}, this machine has {', '.join(local_targets)}")
    return reasons


def with_staleness(entries: Sequence[Entry], installed_version: str | None,
                   local_targets: Sequence[str]) -> list[Entry]:
    """The entries, each with its stale reasons (new entries: the given ones are left as they are)."""
    return [dataclasses.replace(e, stale=stale_reasons(e, installed_version, local_targets)) for e in entries]


@dataclass(frozen=True)
class Removal:
    entry: Entry
    reason: str


def plan_clear(entries: Sequence[Entry], kernel: str | None = None) -> list[Removal]:
    """Every removable entry, or those whose kernel/module name matches `kernel` (shell wildcards allowed)."""
    chosen = []
    for entry in entries:
        if not entry.removable:
            continue
        if kernel is None:
            chosen.append(Removal(entry, "clear"))
        elif entry.name is not None and fnmatch.fnmatchcase(entry.name, kernel):
            chosen.append(Removal(entry, f"kernel matches '{kernel}'"))
    return chosen


def plan_prune(
    entries: Sequence[Entry],
    now: float,
    older_than: float | None = None,
    max_size: int | None = None,
    stale: bool = False,
) -> list[Removal]:
    """What to remove: entries older than `older_than` seconds, stale ones (with `stale`), then the
    least recently written until the removable total fits in `max_size` bytes. Foreign folders are
    neither removed nor counted."""
    removals: list[Removal] = []
    gone: set[str] = set()
    candidates = [e for e in entries if e.removable]
    for entry in candidates:
        if older_than is not None and entry.age(now) > older_than:
            removals.append(Removal(entry, f"older than {human_age(older_than)} ({human_age(entry.age(now))})"))
            gone.add(entry.key)
        elif stale and entry.stale:
            removals.append(Removal(entry, "stale: " + "; ".join(entry.stale)))
            gone.add(entry.key)
    if max_size is not None:
        remaining = sorted((e for e in candidates if e.key not in gone), key=lambda e: (e.mtime, e.key))
        total = sum(e.size for e in remaining)
        for entry in remaining:
            if total <= max_size:
                break
            removals.append(Removal(entry, f"cache over {human_size(max_size)}: oldest first"))
            total -= entry.size
    return removals
