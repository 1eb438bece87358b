"""The commit a checkout's HEAD names, read from its files (no process: facts read it for every
LLVM build another workspace registered, and a build tree is only as good as the checkout it refers to)."""

from __future__ import annotations

import re
from pathlib import Path

_SHA = re.compile(r"[0-9a-f]{40}")
_MAX = 1 << 16  # HEAD, a ref file or a `.git` file is a line; packed-refs is read up to 4 MiB


def _read(path: Path, limit: int = _MAX) -> str | None:
    try:
        if not path.is_file():
            return None
        with path.open("rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def git_dir(checkout: Path) -> Path | None:
    """`<checkout>/.git`, or the folder a `.git` file (a worktree, a submodule) points to."""
    dot = checkout / ".git"
    if dot.is_dir():
        return dot
    text = _read(dot)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (checkout / target)


def _common_dir(gdir: Path) -> Path:
    text = _read(gdir / "commondir")
    if text is None:
        return gdir
    target = Path(text.strip())
    return target if target.is_absolute() else gdir / target


def _ref_commit(gdir: Path, ref: str) -> str | None:
    if ".." in ref.split("/") or not ref.startswith("refs/"):
        return None
    for base in (gdir, _common_dir(gdir)):
        text = _read(base / ref)
        if text is not None:
            sha = text.strip()
            return sha if _SHA.fullmatch(sha) else None
    packed = _read(_common_dir(gdir) / "packed-refs", 4 << 20) or ""
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _SHA.fullmatch(sha):
            return sha
    return None


def head_commit(checkout: Path) -> str | None:
    """The 40-hex commit HEAD names (detached or through a branch), or None when it cannot be read."""
    gdir = git_dir(checkout)
    if gdir is None:
        return None
    text = _read(gdir / "HEAD")
    if text is None:
        return None
    head = text.strip()
    if _SHA.fullmatch(head):
        return head
    if head.startswith("ref:"):
        return _ref_commit(gdir, head[len("ref:") :].strip())
    return None
