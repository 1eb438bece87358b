"""Kernel cache: where it is, its size, entries older than the installed Triton, network filesystems."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import CheckOutcome, Fix, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.kernels.cache.locate import cache_dir as triton_cache_dir

GIB = 1024**3
LARGE_CACHE = 5 * GIB
MAX_FILES = 200_000  # stop counting in a pathological cache: the answer is "large" either way
NETWORK_FS = {"nfs", "nfs4", "lustre", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "gpfs", "beegfs", "ceph",
              "fuse.gcsfuse", "fuse.s3fs", "glusterfs", "fuse.glusterfs", "afs", "virtiofs"}


def cache_dir(environ: dict[str, str]) -> Path:
    """Triton's cache folder: TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~/.triton/cache."""
    return triton_cache_dir(environ, Path(environ.get("HOME") or Path.home()).expanduser())[0]


@dataclass(frozen=True)
class Entry:
    path: Path
    size: int
    newest: float  # mtime of its newest file
    temp_only: bool  # only a tmp.pid_* folder inside: a compile that died half-way


@dataclass(frozen=True)
class CacheScan:
    root: Path
    entries: tuple[Entry, ...]
    size: int
    files: int
    truncated: bool


def scan_cache(root: Path) -> CacheScan:
    entries: list[Entry] = []
    total = files = 0
    truncated = False
    try:
        children = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return CacheScan(root, (), 0, 0, False)
    for child in children:
        if not child.is_dir(follow_symlinks=False):
            continue
        size, newest, names = 0, 0.0, []
        for folder, dirs, filenames in os.walk(child.path):
            names.extend(dirs if folder == child.path else [])
            for name in filenames:
                try:
                    st = os.lstat(os.path.join(folder, name))
                except OSError:
                    continue
                size += st.st_size
                newest = max(newest, st.st_mtime)
                files += 1
        if not newest:
            try:
                newest = child.stat().st_mtime
            except OSError:
                newest = 0.0
        top = [n for n in os.listdir(child.path)] if os.path.isdir(child.path) else []
        temp_only = bool(top) and all(n.startswith("tmp.") for n in top)
        entries.append(Entry(Path(child.path), size, newest, temp_only))
        total += size
        if files > MAX_FILES:
            truncated = True
            break
    return CacheScan(root, tuple(entries), total, files, truncated)


def _scan(facts: Facts) -> CacheScan:
    return facts.memo("cache-scan", lambda: scan_cache(cache_dir(facts.environ)))


def _human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def stale_entries(scan: CacheScan, installed_at: float | None) -> list[Entry]:
    """Entries no current compile can use: half-written ones, and those older than the installed Triton
    (its version is part of every cache key, so they can never be hit again)."""
    stale = [e for e in scan.entries if e.temp_only]
    if installed_at is not None:
        stale += [e for e in scan.entries if not e.temp_only and e.newest < installed_at]
    return stale


def triton_installed_at(facts: Facts) -> float | None:
    try:
        facts.target()
        owners = facts.triton_owners()
    except (Skip, ProbeFailed):
        return None
    times = [d.installed_at for d in owners if d.installed_at]
    return max(times) if times else None


@check("cache.size", "kernel cache size")
def size(facts: Facts) -> CheckOutcome:
    scan = _scan(facts)
    if not scan.root.exists():
        return ok(f"{scan.root} (empty: does not exist yet)")
    shown = f"{_human(scan.size)} in {len(scan.entries)} entries at {scan.root}"
    if scan.truncated:
        shown += " (counting stopped)"
    if scan.size > LARGE_CACHE:
        return warn(f"{shown}: large", "tritondev cache prune --max-size 5G")
    return ok(shown)


@check("cache.stale", "no stale kernel cache entries")
def stale(facts: Facts) -> CheckOutcome:
    scan = _scan(facts)
    if not scan.entries:
        return ok("no entries")
    installed = triton_installed_at(facts)
    found = stale_entries(scan, installed)
    if not found:
        note = "" if installed else " (Triton's install time unknown: only half-written entries checked)"
        return ok(f"{len(scan.entries)} entries, none stale{note}")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(installed)) if installed else "?"
    half = sum(1 for e in found if e.temp_only)
    return warn(
        f"{len(found)} of {len(scan.entries)} entries are stale ({_human(sum(e.size for e in found))}):"
        f" {len(found) - half} predate the Triton installed {when}, {half} half-written",
        Fix("tritondev doctor --fix (removes only those entries)", action="clear-cache", args={"root": str(scan.root)}),
        *[str(e.path) for e in found[:20]],
    )


def mount_of(path: Path, mounts_text: str) -> tuple[str, str]:
    """(mount point, fstype) holding `path`, from /proc/mounts text: the longest matching mount point."""
    best = ("/", "unknown")
    target = str(path)
    for line in mounts_text.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) >= len(best[0]):
            best = (point, parts[2])
    return best


@check("cache.filesystem", "the kernel cache is on a local filesystem")
def filesystem(facts: Facts) -> CheckOutcome:
    root = cache_dir(facts.environ)
    existing = next((p for p in (root, *root.parents) if p.exists()), Path("/"))
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        raise Skip("/proc/mounts is not readable") from None
    point, fstype = mount_of(existing.resolve(), mounts)
    if fstype in NETWORK_FS:
        return warn(
            f"{root} is on {fstype} ({point}): concurrent compiles race (FileNotFoundError, Stale file handle)",
            "export TRITON_CACHE_DIR=/tmp/$USER/triton-cache  (a local disk)",
        )
    return ok(f"{root} on {fstype} ({point})")
