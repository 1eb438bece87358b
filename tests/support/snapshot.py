"""Snapshots of folders, to prove that a command changed nothing on disk."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

Entry = tuple[str, int, str]  # kind, mode, content hash (or link target)

# Content hashes of files already read, by path: (device, inode, size, mtime, ctime, digest). A file whose
# metadata is unchanged and whose ctime is older than RACY_NS when it was hashed has the same content:
# every write sets ctime to the time of the write, and no program can set it back. A file changed less
# than RACY_NS before it was hashed is read again, as git re-reads its "racily clean" files.
_HASHES: dict[str, tuple[int, int, int, int, int, str]] = {}
RACY_NS = 2_000_000_000


def _digest(path: str, info: os.stat_result) -> str:
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    known = _HASHES.get(path)
    if known is not None and known[:5] == key:
        return known[5]
    hashed_at = time.time_ns()
    with open(path, "rb") as fh:
        digest = (
            hashlib.file_digest(fh, "sha256").hexdigest()
            if hasattr(hashlib, "file_digest")
            else hashlib.sha256(fh.read()).hexdigest()
        )
    if info.st_ctime_ns < hashed_at - RACY_NS:
        _HASHES[path] = (*key, digest)
    return digest


def _walk(folder: str, ignore: tuple[str, ...], result: dict[str, Entry]) -> None:
    try:
        listing = os.scandir(folder)
    except OSError:  # a folder that cannot be listed is recorded by its parent only, as os.walk does
        return
    with listing as entries:
        for entry in entries:
            if entry.name in ignore and entry.is_dir(follow_symlinks=False):
                continue
            info = entry.stat(follow_symlinks=False)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                result[entry.path] = ("link", 0, os.readlink(entry.path))
            elif stat.S_ISDIR(info.st_mode):
                result[entry.path] = ("dir", mode, "")
                _walk(entry.path, ignore, result)
            elif not stat.S_ISREG(info.st_mode):  # a FIFO, socket or device: never opened
                result[entry.path] = ("special", mode, str(stat.S_IFMT(info.st_mode)))
            else:
                result[entry.path] = ("file", mode, _digest(entry.path, info))


def snapshot(*roots: Path, ignore: tuple[str, ...] = ("__pycache__",)) -> dict[str, Entry]:
    """Every file, folder and link below `roots`: kind, permission bits and content hash."""
    result: dict[str, Entry] = {}
    for root in roots:
        if not root.exists():
            result[str(root)] = ("absent", 0, "")
            continue
        if root.is_dir():
            _walk(str(root), ignore, result)
        info = root.lstat()
        result[str(root)] = ("dir" if root.is_dir() else "file", stat.S_IMODE(info.st_mode), "")
    return result


def diff(before: dict[str, Entry], after: dict[str, Entry]) -> list[str]:
    """Human-readable differences between two snapshots (empty when nothing changed)."""
    changes = []
    for path in sorted(set(before) | set(after)):
        if path not in after:
            changes.append(f"removed {path}")
        elif path not in before:
            changes.append(f"added {path}")
        elif before[path] != after[path]:
            changes.append(f"changed {path}")
    return changes
