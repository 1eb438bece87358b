"""Tiny real distributions for the purge and guarantee suites: setuptools projects built by `pip wheel`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def project(root: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A setuptools project at `root` whose files are `files` (relative path -> text); its packages are
    the folders those files are in."""
    root.mkdir(parents=True)
    packages = sorted({str(Path(p).parent).replace("/", ".") for p in files})
    (root / "setup.py").write_text(
        f"from setuptools import setup\nsetup(name={name!r}, version={version!r}, packages={packages!r})\n"
    )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def build_wheels(projects: list[Path], out: Path) -> Path:
    """Build one wheel per project into `out` (no index needed); returns `out`."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            *map(str, projects),
        ],
        check=True,
        capture_output=True,
    )
    return out


def one_wheel(folder: Path, pattern: str) -> Path:
    """The one wheel in `folder` matching `pattern`."""
    (found,) = folder.glob(pattern)
    return found
