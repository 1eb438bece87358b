"""Reading files others may have put where tritondev looks: only regular files, never a hang.

Writes go through bootstrap/core/io/writes.py."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def read_json(path: Path) -> Any:
    """The JSON in `path`, or None when the file is missing or unreadable (e.g. from an old crash)."""
    try:
        return parse_json(read_regular(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


class NotRegularFile(OSError):
    """A path tritondev reads is a FIFO, a device, a socket or a folder: never opened for reading."""


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of `path` if it is a regular file (links followed); NotRegularFile otherwise.

    Opened without blocking and checked before reading, so that a FIFO or a device that happens to
    carry the name of a file tritondev reads (in a cache, a workspace, site-packages) can never make
    it hang. limit: read at most this many bytes.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read() if limit is None else fh.read(limit)
    finally:
        os.close(fd)


def read_regular_text(path: Path, limit: int | None = None) -> str:
    """read_regular, decoded as UTF-8 with undecodable bytes replaced."""
    return read_regular(path, limit).decode("utf-8", errors="replace")


def is_regular(path: Path) -> bool:
    """Is `path` a regular file (links followed)? False when it is missing or unreadable."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


@contextmanager
def flock(fd: int, *, shared: bool = False) -> Iterator[bool]:
    """Try to take a flock on `fd` without waiting, exclusive or shared: yields True while held (released
    on exit), False when another process holds it in a mode that excludes this one. The kernel drops a
    dead holder's lock by itself, so a lock left by a killed process is taken over."""
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        yield False
        return
    try:
        yield True
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def parse_json(text: str | bytes) -> Any:
    """json.loads for outside input: a document nested too deeply for the parser is a JSONDecodeError
    (a ValueError) like any other malformed one, never a RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        shown = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", shown[:100], 0) from None


# Less room than this on a filesystem a failed command wrote to is a full disk: nothing a build, pip or
# venv writes fits any more (a command that failed for another reason on a disk with room says its own).
FULL_BELOW_BYTES = 1 << 20


def full_filesystem(paths: list[str]) -> str | None:
    """Which of the filesystems holding `paths` (each judged at its nearest existing folder) is full: no
    room (less than FULL_BELOW_BYTES an unprivileged writer may use) or no free inode; None if none is."""
    seen: set[int] = set()
    for path in paths:
        where = os.path.abspath(path)
        while where != os.path.dirname(where) and not os.path.isdir(where):
            where = os.path.dirname(where)
        try:
            device, facts = os.stat(where).st_dev, os.statvfs(where)
        except OSError:
            continue
        if device in seen or facts.f_flag & os.ST_RDONLY:  # a read-only one is not full, just read-only
            continue
        seen.add(device)
        if facts.f_bavail * facts.f_frsize < FULL_BELOW_BYTES:
            return f"{facts.f_bavail * facts.f_frsize // 1024} KiB free on the filesystem of {where}"
        if facts.f_files and not facts.f_favail:
            return f"no free inode on the filesystem of {where}"
    return None
