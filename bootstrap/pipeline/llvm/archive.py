"""Unpacking a prebuilt LLVM package without trusting it.

Triton's packages hold one top folder named like the package (`llvm-<hash8>-<suffix>[-<n>]/` with
bin/, lib/, include/). Every member is judged twice before it is written: by its name
(`member_problem`: only regular files, folders and links, all inside that top folder; no absolute
path, no `..`, no link pointing out of it by its text, no device file or FIFO), and by what is on
disk at that moment (`on_disk_problem`): the folder it lands in, with every link the archive made so
far resolved, is inside the top folder; a link's target resolves inside it; a hard link's source is
a regular file there; no member replaces what an earlier one wrote. Names alone cannot judge a chain
of links (`top/a -> .` makes `top/a/a/..` the staging folder, and a link through it `/`); the disk
can. At the end every link in the tree is resolved once more. The safety is this module's, the same
on every Python: `tarfile`'s data filter (Python >= 3.12, 3.11.4, 3.10.12) is only a second guard
where it exists, and owners, set-id bits and write bits for others are never taken from the archive.

The package is unpacked into a staging folder next to its final place, so a refused or interrupted
extraction leaves nothing that looks like a package; the caller moves the top folder into place once
it is complete and proven to run.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tarfile
from pathlib import Path

from bootstrap.core.errors import ExternalError, WouldLoseData
from bootstrap.core.io import writes

FILE, FOLDER, SYMLINK, HARDLINK, OTHER = "file", "folder", "symlink", "hardlink", "other"


class UnsafeArchive(ExternalError):
    """A package member would land outside its folder, or is not a plain file, folder or link (exit 4)."""


def _inside(path: str, top: str) -> bool:
    """`path` (an archive path, already normalised) is `top` or below it."""
    parts = path.split("/")
    return parts[0] == top and ".." not in parts


def member_problem(name: str, kind: str, linkname: str, top: str) -> str | None:
    """Why the member `name` of kind FILE/FOLDER/SYMLINK/HARDLINK/OTHER may not be unpacked under
    `<destination>/<top>/`; None when it may. Pure."""
    if kind == OTHER:
        return "a device file, FIFO or other special file"
    if not name or "\0" in name or "\0" in linkname:
        return "an empty name or a NUL byte in it"
    if name.startswith("/"):
        return "an absolute path"
    if ".." in name.split("/"):
        return "a '..' in its path"
    normal = posixpath.normpath(name)
    if not _inside(normal, top):
        return f"outside the package's folder {top}/"
    if kind == SYMLINK:
        if not linkname or linkname.startswith("/"):
            return f"a link to an absolute path ({linkname})" if linkname else "a link to nothing"
        target = posixpath.normpath(posixpath.join(posixpath.dirname(normal), linkname))
        if not _inside(target, top) or target.startswith("../"):
            return f"a link pointing out of {top}/ ({linkname})"
    if kind == HARDLINK:
        target = posixpath.normpath(linkname) if linkname else ""
        if not linkname or linkname.startswith("/") or ".." in linkname.split("/") or not _inside(target, top):
            return f"a hard link to a file outside {top}/ ({linkname})"
    return None


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def on_disk_problem(staging: Path, name: str, kind: str, linkname: str, top: str) -> str | None:
    """Why the member `name` (already passed by member_problem) may not be written under `staging` as the
    disk is now, every link unpacked so far followed; None when it may."""
    root = os.path.join(os.path.realpath(staging), top)
    where = os.path.join(staging, name)
    parent = os.path.realpath(os.path.dirname(where))
    if name != top and not _within(parent, root):
        return f"a path that leads out of {top}/ through a link the archive made"
    if os.path.exists(parent) and not os.path.isdir(parent):
        # `b -> a_file` then `b/c`: the member cannot be made there, and for a link tarfile falls back to
        # extracting the member its name points to, which is itself: a recursion without end.
        return "a path below something that is not a folder"
    if os.path.lexists(where) and not (kind == FOLDER and os.path.isdir(where) and not os.path.islink(where)):
        return "a second member of that name (it would replace what an earlier one wrote)"
    if kind == SYMLINK and not _within(os.path.realpath(os.path.join(parent, linkname)), root):
        return f"a link that leads out of {top}/ through the links the archive made ({linkname})"
    if kind == HARDLINK:
        source = os.path.join(staging, linkname)
        if os.path.islink(source) or not os.path.isfile(source) or not _within(os.path.realpath(source), root):
            return f"a hard link to something that is not a file of {top}/ ({linkname})"
    return None


def links_out(folder: Path) -> list[str]:
    """Links anywhere under `folder` that resolve outside it (an end-of-unpacking proof)."""
    root = os.path.realpath(folder)
    found = []
    for where, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(where, name)
            if os.path.islink(path) and not _within(os.path.realpath(path), root):
                found.append(os.path.relpath(path, folder))
    return found


def kind_of(member: tarfile.TarInfo) -> str:
    if member.isfile():
        return FILE
    if member.isdir():
        return FOLDER
    if member.issym():
        return SYMLINK
    if member.islnk():
        return HARDLINK
    return OTHER


def staging_folder(into: Path, top: str) -> Path:
    return into / f".{top}.unpacking"


STAGING_MARK = ".tritondev-unpacking"  # in a staging folder from its creation: only a marked one is deleted


def remove_staging(staging: Path) -> None:
    """Delete a staging folder of ours (it holds our mark, or nothing); WouldLoseData (exit 6) for anything
    else of that name, which is left as it is."""
    if not os.path.lexists(staging):
        return
    mark = staging / STAGING_MARK
    if (
        staging.is_symlink()
        or not staging.is_dir()
        or not ((os.path.lexists(mark) and writes.describe(mark) is None) or not any(staging.iterdir()))
    ):
        raise WouldLoseData(
            f"{staging} is in the way of unpacking and is not a folder tritondev made; it is left alone",
            fix=f"move {staging} away, then run the command again",
        )
    shutil.rmtree(staging)


def _refused(archive: Path, name: str, problem: str) -> UnsafeArchive:
    return UnsafeArchive(
        f"{archive.name} holds {name!r}: {problem}; refused, nothing unpacked",
        fix="the package is not what Triton publishes: use --llvm source, or check the mirror given"
        " by --llvm-prebuilt-url",
    )


def _extract(tar: tarfile.TarFile, member: tarfile.TarInfo, archive: Path, staging: Path, top: str) -> None:
    """One member, judged by its name and by the disk, written without the archive's owners or set-id bits."""
    name, kind = member.name.rstrip("/") or member.name, kind_of(member)
    problem = member_problem(name, kind, member.linkname, top) or on_disk_problem(
        staging, posixpath.normpath(name), kind, member.linkname, top
    )
    if problem is not None:
        raise _refused(archive, member.name, problem)
    if hasattr(tarfile, "data_filter"):  # a second guard where Python has it; the checks above are the guard
        tar.extract(member, staging, set_attrs=False, filter="data")
    else:
        tar.extract(member, staging, set_attrs=False)
    where = staging / posixpath.normpath(name)
    if kind in (FILE, FOLDER):  # the archive's modes, less set-id bits and write bits for others
        os.chmod(where, 0o755 if kind == FOLDER or member.mode & 0o100 else 0o644)
    if kind == FILE:
        os.utime(where, (member.mtime, member.mtime))


def unpack(archive: Path, into: Path, top: str) -> Path:
    """Unpack `archive` into a staging folder under `into`; returns `<staging>/<top>`.

    UnsafeArchive (nothing left behind) when a member is refused or the top folder is not there.
    """
    staging = staging_folder(into, top)
    remove_staging(staging)
    staging.mkdir(parents=True)
    writes.replace_text(staging / STAGING_MARK, "an unpacking tritondev has not finished\n")
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                _extract(tar, member, archive, staging, top)
        outside = links_out(staging / top)
        if outside:
            raise _refused(archive, outside[0], f"a link that leads out of {top}/ once every member is unpacked")
    except (tarfile.TarError, EOFError, OSError) as exc:
        remove_staging(staging)
        if isinstance(exc, OSError) and exc.errno == 28:
            raise ExternalError(
                f"the disk is full: {archive.name} could not be unpacked into {into}",
                fix="free space and run the same command again",
            ) from None
        raise UnsafeArchive(
            f"{archive.name} cannot be unpacked: {exc}", fix="run again to download it afresh, or use --llvm source"
        ) from None
    except BaseException:
        remove_staging(staging)
        raise
    unpacked = staging / top
    if not (unpacked / "bin").is_dir() or not (unpacked / "lib").is_dir():
        remove_staging(staging)
        raise UnsafeArchive(
            f"{archive.name} does not hold {top}/bin and {top}/lib, as Triton's packages do",
            fix="use --llvm source, or check the mirror given by --llvm-prebuilt-url",
        )
    return unpacked


def copy_unpacked(source: Path, into: Path, top: str) -> Path:
    """A package already unpacked elsewhere (Triton's own, left in ~/.triton/llvm by `pip install -e .`)
    copied into a staging folder under `into` (links copied as links); returns `<staging>/<top>`. The
    source is only read."""
    staging = staging_folder(into, top)
    remove_staging(staging)
    staging.mkdir(parents=True)
    writes.replace_text(staging / STAGING_MARK, "an unpacking tritondev has not finished\n")
    try:
        shutil.copytree(source, staging / top, symlinks=True)
    except BaseException:
        remove_staging(staging)
        raise
    return staging / top
