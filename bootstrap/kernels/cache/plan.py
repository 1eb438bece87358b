"""What to remove from the kernel cache, and which entries are stale. Pure: no process, nothing deleted.

Foreign folders (names that are not Triton cache keys) are never planned, whatever the options say.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bootstrap.kernels.cache.scan import AUTOTUNE, INCOMPLETE, KERNEL, Entry
from bootstrap.kernels.cache.units import human_age, human_size

# Entries whose key starts with triton_key() (compiler.py's get_cache_key, autotuner's disk cache).
KEYED_BY_TRITON = (KERNEL, AUTOTUNE, INCOMPLETE)


def now() -> float:
    """The time ages are measured against (one reading per command, so that plan and report agree)."""
    return time.time()


def stale_reasons(
    entry: Entry, installed_version: str | None, local_targets: Sequence[str], key_changed_at: float | None = None
) -> list[str]:
    """Why an entry is stale (empty: fresh, or not known to be stale): the one meaning of "stale" for
    `cache ls`, `cache prune --stale`, doctor's cache check and `doctor --fix`.

    - a write that never finished (only tmp.pid_* folders in it): nothing ever reads it;
    - a kernel built by another Triton than the installed one, or for a GPU that is not here;
    - a kernel, autotuning result or unfinished compile written before the files that Triton's cache
      key hashes last changed (triton_key(): its own sources and libtriton): no compile asks for that
      key again. Compiled modules (launchers, driver utilities) are keyed by their own C source, not
      by Triton's build, and stay.

    installed_version: `triton.__version__` of the target environment (None: unknown, no check).
    local_targets: targets of the GPUs present ("cuda:90", "hip:gfx942"); empty: no GPU, no check.
    key_changed_at: when the target's Triton last changed its cache key (None: unknown, no check).
    """
    if not entry.removable:
        return []
    if entry.interrupted:
        return ["a write that never finished (only tmp.pid_* folders in it)"]
    reasons: list[str] = []
    if entry.kind == KERNEL:
        if installed_version and entry.triton_version and entry.triton_version != installed_version:
            reasons.append(f"built by Triton {entry.triton_version}, installed is {installed_version}")
        if local_targets and entry.target and entry.target not in local_targets:
            reasons.append(f"built for {entry.target}, this machine has {', '.join(local_targets)}")
    if key_changed_at is not None and entry.kind in KEYED_BY_TRITON and entry.mtime < key_changed_at:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(key_changed_at))
        reasons.append(f"written before the installed Triton changed ({when}): its cache key cannot come again")
    return reasons


def with_staleness(
    entries: Sequence[Entry],
    installed_version: str | None,
    local_targets: Sequence[str],
    key_changed_at: float | None = None,
) -> list[Entry]:
    """The entries, each with its stale reasons (new entries: the given ones are left as they are)."""
    return [
        dataclasses.replace(e, stale=stale_reasons(e, installed_version, local_targets, key_changed_at))
        for e in entries
    ]


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
