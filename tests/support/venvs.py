"""Real virtualenvs for tests, kept between runs when their recipe has not changed.

A venv with triton (and torch, numpy) takes a minute or two to create; tests that only read it share
one per recipe, created once per machine in <repo>/.venv-cache/<name> (git-ignored). Tests that
change an environment make their own throwaway venv with `fresh_venv`.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".venv-cache"


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def fresh_venv(path: Path, packages: list[str] | None = None, system_site_packages: bool = False) -> Path:
    """A new venv at `path`, as `python -m venv` makes it (pip and setuptools in it), with `packages`
    installed by pip; returns its python.

    `python -m venv` spends 3-4 s of CPU in ensurepip (pip installs its own two wheels and compiles
    them) and the tests make dozens: the venv is made without pip, and pip's and setuptools' installed
    files (and pip's scripts, for this python) are copied in from one venv that ensurepip made once
    per machine. Setup's own `python -m venv` is what makes a workspace venv, except where a test
    hands setup one made ahead (`workspace_venv`)."""
    args = [sys.executable, "-m", "venv", "--without-pip", str(path)]
    if system_site_packages:
        args.append("--system-site-packages")
    subprocess.run(args, check=True)
    py = python_of(path)
    _copy_pip_from(_ensurepip_venv(), path)
    if packages:
        pip_install(py, packages)
    return py


def workspace_venv(workspace: Path) -> Path:
    """The venv that setup makes in a new workspace (`<workspace>/venv`), made ahead of the first setup,
    which finds it there and uses it as every later setup does; returns its python.

    For tests whose subject is not the making of that venv: setup's own `python -m venv` runs in the
    setup, fault, layout and first-run tests, and wherever a test deletes the venv or the workspace."""
    return fresh_venv(workspace / "venv")


def _site_packages(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def _ensurepip_venv() -> Path:
    """A venv that `python -m venv` (ensurepip) made, with nothing else installed: the source of pip."""
    CACHE.mkdir(exist_ok=True)
    venv = CACHE / f"ensurepip-{sys.version_info.major}.{sys.version_info.minor}"
    stamp_value = sys.version
    with (CACHE / f"{venv.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = venv / ".stamp"
        if not (stamp.is_file() and stamp.read_text() == stamp_value):
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            stamp.write_text(stamp_value)
    return venv


def _copy_pip_from(source: Path, venv: Path) -> None:
    """What ensurepip installed in `source` (site-packages entries, and bin/pip* with their first line
    naming `venv`'s python) into `venv`."""
    target = _site_packages(venv)
    for entry in _site_packages(source).iterdir():
        if entry.is_dir():
            shutil.copytree(entry, target / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, target / entry.name)
    for script in sorted((source / "bin").glob("pip*")):
        lines = script.read_text().splitlines(keepends=True)
        lines[0] = f"#!{python_of(venv)}\n"
        (venv / "bin" / script.name).write_text("".join(lines))
        (venv / "bin" / script.name).chmod(0o755)


def pip_install(py: Path, packages: list[str]) -> None:
    subprocess.run(
        [str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", *packages],
        check=True,
    )


def shared_venv(name: str, packages: list[str]) -> Path:
    """A cached venv with `packages`, rebuilt when the list changes. Safe under pytest -n (file lock)."""
    CACHE.mkdir(exist_ok=True)
    stamp_value = hashlib.sha256(("\n".join([sys.version, *packages])).encode()).hexdigest()
    venv = CACHE / name
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = venv / ".stamp"
        if stamp.is_file() and stamp.read_text() == stamp_value and python_of(venv).exists():
            return python_of(venv)
        shutil.rmtree(venv, ignore_errors=True)
        fresh_venv(venv, packages)
        stamp.write_text(stamp_value)
    return python_of(venv)


# The real Triton wheel from the package index, with CPU torch and numpy: enough for the
# interpreter (TRITON_INTERPRET=1) and for ahead-of-time compiles to cuda/hip targets without a GPU.
TRITON_KERNEL_PACKAGES = ["triton==3.9.0", "numpy", "torch==2.13.0"]


def triton_venv() -> Path:
    return shared_venv("triton-3.9", TRITON_KERNEL_PACKAGES)
