"""The target environment as the install steps see it, and the purge that runs before the install.

Readers (no process): a cheap listing of what is installed, whether the editable install from the
checkout and the build requirements are there, digests of the files whose change means pip must
install again. The purge removes every other triton from the target right before Triton is
installed (never the editable install of this workspace's own checkout).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from bootstrap.core.fsutil import read_json, read_regular

# setup.py and pyproject.toml: when they change, pip must install again (not just ninja).
SETUP_FILES = ("setup.py", "pyproject.toml")


def environment_listing(site_packages: Sequence[Path]) -> str:
    """What is installed, cheaply: names of metadata folders, .pth and .egg-link files and triton*.

    Reading one directory per site-packages folder; no process. If it matches the listing recorded
    after the last successful setup, nothing was installed or removed since.
    """
    names: list[str] = []
    for sp in site_packages:
        try:
            entries = os.listdir(sp)
        except OSError:
            continue
        names += [
            f"{sp}/{e}"
            for e in entries
            if e.endswith((".dist-info", ".egg-info", ".pth", ".egg-link")) or e.lower().startswith("triton")
        ]
    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()


def own_install_present(site_packages: Sequence[Path], setup_dir: Path) -> bool:
    """Is an editable triton installed from `setup_dir` (pip's direct_url.json says so)?"""
    for sp in site_packages:
        for meta in sp.glob("triton-*.dist-info"):
            data = read_json(meta / "direct_url.json")
            if not isinstance(data, dict):
                continue
            url = str(data.get("url", ""))
            if url.startswith("file://") and Path(url[len("file://") :]).resolve() == setup_dir.resolve():
                return True
    return False


def _dist_key(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def requirements_present(site_packages: Sequence[Path], requires: Sequence[str]) -> bool:
    """Is a distribution of every requirement's name installed (versions are pip's business)?"""
    installed: set[str] = set()
    for sp in site_packages:
        try:
            entries = os.listdir(sp)
        except OSError:
            continue
        installed |= {_dist_key(e.split("-", 1)[0]) for e in entries if e.endswith((".dist-info", ".egg-info"))}
    names = [re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requires]
    return all(_dist_key(m.group(1)) in installed for m in names if m)


def file_state(root: Path, files: Sequence[str]) -> str:
    """A digest of changed files' names, sizes and mtimes (a dirty checkout's edits are inputs too)."""
    digest = hashlib.sha256()
    for name in sorted(files):
        try:
            st = (root / name).stat()
            digest.update(f"{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        except OSError:
            digest.update(f"{name}:gone\n".encode())
    return digest.hexdigest() if files else ""


def setup_files_digest(setup_dir: Path) -> str:
    """The contents of setup.py and pyproject.toml next to it."""
    digest = hashlib.sha256()
    for name in SETUP_FILES:
        try:
            digest.update(name.encode() + b"\0" + read_regular(setup_dir / name))
        except OSError:
            digest.update(name.encode() + b"\0-")
    return digest.hexdigest()
