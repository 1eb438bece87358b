"""Which folders of a cache directory are Triton's: the rule that decides what `cache clear`/`prune`
(and `doctor --fix`) may ever delete.

The cache folder is named by the user (--dir, TRITON_CACHE_DIR, TRITON_HOME): a typo can point it
at any folder, and a folder of hex- or base32-named subfolders is common (content-addressed stores,
build caches). So a name that looks like a cache key is not enough. A folder is Triton's only when
its name is a cache key and everything in it is what Triton's cache writes (runtime/cache.py,
compiler/compiler.py, runtime/build.py, runtime/autotuner.py):

- regular files named `<name>.<stage>`: IR stages (source, ttir, ttgir, glir, llir, ptx, amdgcn),
  binaries (cubin, hsaco, spv, zebin), metadata and groups (.json, `__grp__*.json`), compiled
  launchers and driver utilities (`.so`, also with Python's EXT_SUFFIX);
- `tmp.pid_<pid>_<id>/` folders holding such files (an interrupted write);
- and at least one file that only Triton writes: an IR stage or binary, a group file, a `.so`, an
  `.autotune.json`, or metadata naming a compile target (checked by the scan).

Anything else in a folder (another file name, a FIFO, a device, a symlink, another folder) makes
it foreign: listed, never removed.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

# Triton >= 3.0 names entries by base32(sha256) (52 chars); 2.x used hex digests.
KEY_NAME = re.compile(r"^(?:[A-Z2-7]{52}|[0-9a-f]{32}|[0-9a-f]{64})$")
# A folder `cache clear` renamed out of Triton's sight before deleting it: <prefix><key>-<pid>.
TRASH_PREFIX = ".tritondev-trash-"
TRASH_NAME = re.compile(rf"^{re.escape(TRASH_PREFIX)}(?:[A-Z2-7]{{52}}|[0-9a-f]{{32}}|[0-9a-f]{{64}})-\d+$")

# The last extension of each file Triton's cache holds.
STAGE_SUFFIXES = frozenset(
    {"source", "ttir", "ttgir", "glir", "mlir", "llir", "ptx", "amdgcn", "cubin", "hsaco", "spv", "zebin"}
)
TRITON_SUFFIXES = STAGE_SUFFIXES | {"json", "so", "pyd"}
_TMP_DIR = re.compile(r"^tmp\.pid_\d+_[0-9a-f-]+$")  # pid, then a uuid4
_ODD_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ""


def is_triton_file_name(name: str) -> bool:
    return not name.startswith(".") and _suffix(name) in TRITON_SUFFIXES


def is_evidence(name: str) -> bool:
    """A file name only Triton's cache uses (metadata .json alone is checked by its content)."""
    suffix = _suffix(name)
    return (
        suffix in STAGE_SUFFIXES
        or suffix in ("so", "pyd")
        or name.startswith("__grp__")
        or name.endswith(".autotune.json")
    )


def _entries(folder: Path) -> Iterable[tuple[str, int]]:
    """(name, st_mode) of each thing directly in `folder`, links not followed."""
    with os.scandir(folder) as found:
        for item in found:
            try:
                yield item.name, item.stat(follow_symlinks=False).st_mode
            except OSError:
                continue  # gone while we looked (a concurrent Triton write)


def content_problem(folder: Path) -> str | None:
    """Why `folder` is not a Triton cache entry as far as its contents go; None when they are Triton's.

    (Whether it also holds a file only Triton writes is the scan's call: it reads the metadata.)"""
    try:
        for name, mode in _entries(folder):
            kind = stat.S_IFMT(mode)
            if kind == stat.S_IFDIR:
                if not _TMP_DIR.match(name):
                    return f"holds a folder {name!r}, which Triton's cache does not write"
                inner = content_problem(folder / name)
                if inner is not None:
                    return inner
            elif kind != stat.S_IFREG:
                return f"holds {name!r}, which is {_ODD_KINDS.get(kind, 'not a regular file')}"
            elif not is_triton_file_name(name):
                return f"holds {name!r}, which Triton's cache does not write"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None


def is_trash_of_ours(path: Path) -> bool:
    """A folder an interrupted `cache clear` of tritondev left: its name and Triton-only contents."""
    return (
        bool(TRASH_NAME.match(path.name))
        and not path.is_symlink()
        and path.is_dir()
        and (content_problem(path) is None)
    )
