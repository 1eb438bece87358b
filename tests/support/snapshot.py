"""Snapshots of folders, to prove that a command changed nothing on disk."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

Entry = tuple[str, int, str]  # kind, mode, content hash (or link target)


def snapshot(*roots: Path, ignore: tuple[str, ...] = ("__pycache__",)) -> dict[str, Entry]:
    """Every file, folder and link below `roots`: kind, permission bits and content hash."""
    result: dict[str, Entry] = {}
    for root in roots:
        if not root.exists():
            result[str(root)] = ("absent", 0, "")
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = [d for d in dirnames if d not in ignore]
            for name in [*dirnames, *filenames]:
                path = Path(dirpath) / name
                info = path.lstat()
                mode = stat.S_IMODE(info.st_mode)
                if stat.S_ISLNK(info.st_mode):
                    result[str(path)] = ("link", 0, os.readlink(path))
                elif stat.S_ISDIR(info.st_mode):
                    result[str(path)] = ("dir", mode, "")
                elif not stat.S_ISREG(info.st_mode):  # a FIFO, socket or device: never opened
                    result[str(path)] = ("special", mode, str(stat.S_IFMT(info.st_mode)))
                else:
                    digest = hashlib.sha256(path.read_bytes()).hexdigest()
                    result[str(path)] = ("file", mode, digest)
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
