"""Every file tritondev writes is opened here, and only as a regular file or created anew.

A path tritondev writes (the workspace lock, a step log, a state file, the purge journal, `env.sh`,
`state/settings.json`, a crash log, an `opt` or `compile` output) may be anything on disk: a
symbolic link to a user's file, a folder, a FIFO, a device. Opening it the ordinary way would
truncate the link's target, or block forever on the FIFO. So:

- the file itself is opened with O_NOFOLLOW and O_NONBLOCK, then checked with fstat: a link, a
  folder, a FIFO, a socket or a device is `NotWritable` (a ConfigError: exit 2 naming the path and
  what it is), and nothing was written;
- the folders between the workspace (or another anchor: a root tritondev owns, see `anchor`) and
  the file are entered one at a time with O_NOFOLLOW, so a `logs/` or `state/` that is a link out of
  the workspace is refused the same way; missing ones are created; a folder above the anchor (the
  workspace itself may be a link the user made) is followed as the user named it;
- whole-file writes go to a new temporary file beside the target and are renamed over it, so a
  reader never sees half a file and a cut-off write leaves the old one;
- text is masked (`redact`) unless the caller says the bytes are the user's own (`verbatim`).
"""

from __future__ import annotations

import errno
import json
import math
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import IO, Any

from bootstrap.core import run_state
from bootstrap.core.errors import ConfigError
from bootstrap.core.redact import redact, redact_data

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class Mode(Enum):
    """How `open_file` opens an existing regular file."""

    TRUNCATE = "truncate"  # start it anew
    APPEND = "append"  # add at its end
    UPDATE = "update"  # read and write in place (a lock file)


class NotWritable(ConfigError):
    """A path tritondev writes is not a regular file (or a folder on the way is not a real folder)."""

    def __init__(self, path: Path | str, what: str) -> None:
        super().__init__(
            f"{path} is {what}, not a file tritondev writes; nothing was written to it",
            fix=f"move {path} out of the way (it is not tritondev's), then run the command again",
        )
        self.path = str(path)


@dataclass(frozen=True)
class Target:
    """Where one write lands: the open folder it goes into and the file's name there."""

    folder_fd: int
    name: str
    path: str


@dataclass
class _Anchors:
    """This run's folders whose insides tritondev owns (the workspace, its caches): bootstrap.core.run_state."""

    folders: list[str] = field(default_factory=list)


def anchor(root: Path | str) -> None:
    """Declare `root` a folder whose insides are tritondev's (the workspace): below it no link is followed."""
    absolute = os.path.abspath(root)
    folders = run_state.part(_Anchors).folders
    if absolute not in folders:
        folders.append(absolute)


def describe(path: Path | str) -> str | None:
    """What `path` is when it is not a regular file ("a symbolic link", "a folder", ...); None when it
    is one or is missing. Links are not followed."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    return _kind(mode)


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _anchor_of(path: str) -> str | None:
    found = [a for a in run_state.part(_Anchors).folders if path == a or path.startswith(a.rstrip(os.sep) + os.sep)]
    return max(found, key=len) if found else None


def open_folder(folder: Path | str, *, create: bool = True) -> int:
    """An fd of `folder`, entered without following links below its anchor; NotWritable otherwise."""
    absolute = os.path.abspath(folder)
    root = _anchor_of(absolute)
    if root is None:
        if create:
            os.makedirs(absolute, exist_ok=True)
        return os.open(absolute, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    if create:
        os.makedirs(root, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    where = root
    for part in Path(absolute).relative_to(root).parts:
        where = os.path.join(where, part)
        try:
            if create:
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
            inner = os.open(part, _DIRECTORY, dir_fd=fd)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise NotWritable(where, describe(where) or "not a folder") from None
            raise
        os.close(fd)
        fd = inner
    return fd


@contextmanager
def target(path: Path | str, *, create: bool = True) -> Iterator[Target]:
    """The folder of `path`, open, for one write (closed afterwards)."""
    absolute = os.path.abspath(path)
    folder_fd = open_folder(os.path.dirname(absolute), create=create)
    try:
        yield Target(folder_fd, os.path.basename(absolute), absolute)
    finally:
        os.close(folder_fd)


def _refuse_unless_regular(where: Target) -> None:
    try:
        mode = os.stat(where.name, dir_fd=where.folder_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    what = _kind(mode)
    if what is not None:
        raise NotWritable(where.path, what)


def open_file(path: Path | str, mode: Mode = Mode.TRUNCATE, permissions: int = 0o644) -> int:
    """An fd of `path` open for writing (UPDATE: reading too): an existing regular file, or one created
    now. Never follows a link, never blocks on a FIFO; NotWritable for anything else."""
    flags = os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    flags |= {Mode.TRUNCATE: os.O_WRONLY, Mode.APPEND: os.O_WRONLY | os.O_APPEND, Mode.UPDATE: os.O_RDWR}[mode]
    with target(path) as where:
        _refuse_unless_regular(where)
        try:
            fd = os.open(where.name, flags, permissions, dir_fd=where.folder_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EWOULDBLOCK, errno.ENOTDIR):
                raise NotWritable(where.path, describe(where.path) or "not a regular file") from None
            raise
    what = _kind(os.fstat(fd).st_mode)
    if what is not None:
        os.close(fd)
        raise NotWritable(path, what)
    os.set_blocking(fd, True)
    if mode is Mode.TRUNCATE:
        os.ftruncate(fd, 0)
    return fd


def open_text(path: Path | str, mode: Mode = Mode.TRUNCATE) -> IO[str]:
    """open_file as a text stream (UTF-8; characters it cannot encode are escaped, never an error)."""
    fd = open_file(path, mode)
    return os.fdopen(fd, "a" if mode is Mode.APPEND else "w", encoding="utf-8", errors="backslashreplace")


def remove_file(path: Path | str) -> None:
    """Remove the regular file at `path`, entered as every write is (no link followed below the anchor);
    nothing when there is none, NotWritable for a link, folder or FIFO there (left as it is)."""
    try:
        with target(path, create=False) as where:
            try:
                mode = os.stat(where.name, dir_fd=where.folder_fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                return
            if not stat.S_ISREG(mode):
                raise NotWritable(where.path, _kind(mode) or "not a regular file")
            os.unlink(where.name, dir_fd=where.folder_fd)
    except FileNotFoundError:  # its folder is gone: so is the file
        return


def replace_bytes(path: Path | str, data: bytes, *, permissions: int | None = None) -> None:
    """Write `data` as the whole of `path`: a new file beside it, renamed over it (atomic); with
    `permissions` the new file has them (a file keeping its mode), else 0644."""

    def fill(fh: IO[bytes]) -> None:
        fh.write(data)
        if permissions is not None:
            os.fchmod(fh.fileno(), permissions)

    _replace(path, fill)


def replace_copy(path: Path | str, source: Path | str) -> None:
    """`path` made a copy of the regular file `source` (its bytes, mode and times), renamed into place."""
    with open(source, "rb") as src:
        stat_of = os.fstat(src.fileno())

        def copy(fh: IO[bytes]) -> None:
            shutil.copyfileobj(src, fh, 1 << 20)
            os.fchmod(fh.fileno(), stat.S_IMODE(stat_of.st_mode))
            fh.flush()
            os.utime(fh.fileno(), ns=(stat_of.st_atime_ns, stat_of.st_mtime_ns))

        _replace(path, copy)


def _replace(path: Path | str, fill: Callable[[IO[bytes]], object]) -> None:
    with target(path) as where:
        _refuse_unless_regular(where)
        tmp = f".{where.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        fd = os.open(
            tmp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
            0o644,
            dir_fd=where.folder_fd,
        )
        try:
            with os.fdopen(fd, "wb") as fh:
                fill(fh)
                fh.flush()
                os.fsync(fh.fileno())
            _refuse_unless_regular(where)  # a link put there meanwhile is not replaced either
            os.replace(tmp, where.name, src_dir_fd=where.folder_fd, dst_dir_fd=where.folder_fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=where.folder_fd)
            except FileNotFoundError:
                pass
            raise


def replace_text(path: Path | str, text: str, *, verbatim: bool = False, permissions: int | None = None) -> None:
    """replace_bytes of `text` in UTF-8, masked unless `verbatim` (bytes that are the user's own: an
    env file's other lines, a compiler's output). Undecodable bytes kept as surrogate escapes go back
    as they came."""
    shown = text if verbatim else redact(text)
    replace_bytes(path, shown.encode("utf-8", "surrogateescape"), permissions=permissions)


def fresh_file(path: Path | str) -> None:
    """An empty regular file at `path` for a program to append to (distcc's client log). Whatever was at
    that name (a file, a link, a FIFO, a socket) is unlinked first, never opened; a folder there is
    NotWritable; the folders on the way are entered as for every write."""
    with target(path) as where:
        try:
            mode: int | None = os.stat(where.name, dir_fd=where.folder_fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            raise NotWritable(where.path, "a folder")
        if mode is not None:
            os.unlink(where.name, dir_fd=where.folder_fd)
    replace_bytes(path, b"")


def create_text(path: Path | str, text: str, *, verbatim: bool = False) -> bool:
    """`text` as a new file at `path`, only where nothing is (a file, a link, a dangling link, a FIFO:
    all left as they are). True when written; masked unless `verbatim`."""
    shown = text if verbatim else redact(text)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    with target(path) as where:
        try:
            fd = os.open(where.name, flags, 0o644, dir_fd=where.folder_fd)
        except FileExistsError:
            return False
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(shown.encode("utf-8", "surrogateescape"))
        except BaseException:
            os.unlink(where.name, dir_fd=where.folder_fd)
            raise
    return True


def create_unique_text(folder: Path | str, prefix: str, suffix: str, text: str) -> Path:
    """`text` (masked) as a new file of an unpredictable name in `folder` (`prefix`, 16 random hex digits,
    `suffix`), readable by its owner only: created with O_EXCL, so nothing already there (a link planted
    at a name someone guessed) is opened or followed. The path of the file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    folder_fd = open_folder(folder)
    try:
        while True:
            name = f"{prefix}{os.urandom(8).hex()}{suffix}"
            try:
                fd = os.open(name, flags, 0o600, dir_fd=folder_fd)
            except FileExistsError:
                continue
            break
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(redact(text).encode("utf-8", "surrogateescape"))
        except BaseException:
            os.unlink(name, dir_fd=folder_fd)
            raise
    finally:
        os.close(folder_fd)
    return Path(os.path.abspath(folder)) / name


def strict_json(data: Any, **options: Any) -> str:
    """`data` as RFC 8259 JSON: NaN and infinities (which JSON has no words for) become null."""
    try:
        return json.dumps(data, allow_nan=False, **options)
    except ValueError:
        return json.dumps(_finite(data), allow_nan=False, **options)


def _finite(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


def replace_json(path: Path | str, data: Any) -> None:
    """replace_text of `data` as strict JSON, every string masked."""
    replace_text(path, strict_json(redact_data(data), indent=2, sort_keys=True, default=str) + "\n")
