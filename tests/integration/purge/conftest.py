"""Real wheels and venvs for the purge tests.

Three tiny distributions are built with setuptools (pip wheel): `triton` and `pytorch-triton`, which
both install the `triton/` import package (as PyTorch's renamed wheels do), and `unrelated-dist`
standing in for everything purge must leave alone. A `triton` source project is kept for editable
installs. Venvs are copies of one venv made per session (a venv copy is a working venv; only its
console-script shebangs point back, and the tests use `python -m pip`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from tests.support.venvs import fresh_venv, python_of
from tests.support.wheels import build_wheels, one_wheel, project

TRITON_VERSION = "3.5.0"
PYTORCH_TRITON_VERSION = "3.5.0+git7416ffcb"


@dataclass(frozen=True)
class Wheels:
    triton: Path
    pytorch_triton: Path
    unrelated: Path
    editable_src: Path  # a triton "source checkout" for pip install -e


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Wheels:
    root = tmp_path_factory.mktemp("purge-wheels")
    common = "triton/language/__init__.py"
    projects = [
        project(
            root / "triton",
            "triton",
            TRITON_VERSION,
            {
                "triton/__init__.py": f"from . import language\n__version__ = {TRITON_VERSION!r}\nDIST = 'triton'\n",
                common: "def program_id(axis): return axis\n",
                "triton/only_triton.py": "X = 1\n",
            },
        ),
        project(
            root / "pytorch-triton",
            "pytorch-triton",
            PYTORCH_TRITON_VERSION,
            {
                "triton/__init__.py": (
                    f"from . import language\n__version__ = {PYTORCH_TRITON_VERSION!r}\nDIST = 'pytorch-triton'\n"
                ),
                common: "def program_id(axis): return axis + 0\n",
                "triton/only_pytorch.py": "Y = 1\n",
            },
        ),
        project(root / "unrelated", "unrelated-dist", "1.0", {"unrelated/__init__.py": "Z = 1\n"}),
    ]
    out = build_wheels(projects, root / "dist")
    editable = project(
        root / "checkout" / "python",
        "triton",
        "3.6.0+dev",
        {"triton/__init__.py": "__version__ = '3.6.0+dev'\nDIST = 'editable'\n", common: "A = 1\n"},
    )

    return Wheels(
        one_wheel(out, "triton-*.whl"),
        one_wheel(out, "pytorch_triton-*.whl"),
        one_wheel(out, "unrelated_dist-*.whl"),
        editable,
    )


@pytest.fixture(scope="session")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("purge-base") / "venv"
    fresh_venv(venv, ["wheel"])  # so that `pip install -e --no-build-isolation` needs no index
    return venv


class VenvCopy(Protocol):
    """The type of the `venv_copy` fixture."""

    def __call__(self, name: str = "venv") -> Path: ...


@pytest.fixture
def venv_copy(base_venv: Path, tmp_path: Path) -> VenvCopy:
    """`venv_copy(name)` -> python of a new venv (a copy of the session's empty one)."""

    def make(name: str = "venv") -> Path:
        dst = tmp_path / name
        shutil.copytree(base_venv, dst, symlinks=True)
        return python_of(dst)

    return make


def pip(py: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(py), "-m", "pip", "--disable-pip-version-check", *args], capture_output=True, text=True, check=True
    )


def site_packages(py: Path) -> Path:
    out = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def listed(py: Path) -> dict[str, str]:
    """name -> version as the venv's pip lists them."""
    out = pip(py, "list", "--format=json")
    return {d["name"]: d["version"] for d in json.loads(out.stdout)}


def run_py(
    py: Path, code: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=cwd, env=env)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below `folder` with size and mtime: equal snapshots mean nothing changed."""
    result = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() or path.is_symlink():
            st = path.lstat()
            result[str(path.relative_to(folder))] = (st.st_size, st.st_mtime_ns)
    return result
