"""Fixtures for the kernel tests: the real Triton venv, a clean environment, the CLI run from it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Protocol

import pytest

from tests.conftest import REPO, run_cli
from tests.integration.kernels.kernels_src import KERNELS
from tests.support.environ import child_environ
from tests.support.venvs import triton_venv


class RunCli(Protocol):
    """The type of the `tdv` fixture."""

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]: ...


@pytest.fixture(scope="session")
def triton_python() -> Path:
    """Real triton 3.9.0 from the package index, CPU torch and numpy (created once, cached)."""
    return triton_venv()


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """No TRITONDEV_/TRITON_ variables or active venv; a private HOME, Triton cache and workspace."""
    home = tmp_path_factory.mktemp("home")
    env = child_environ()
    env.update(
        HOME=str(home),
        PYTHONPATH=str(REPO),
        TRITON_CACHE_DIR=str(home / "triton-cache"),
        TRITONDEV_WORKSPACE=str(home / "ws"),
    )
    return env


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("src") / "my_kernels.py"
    path.write_text(KERNELS)
    return path


@pytest.fixture(scope="module")
def tdv(kernel_env: dict[str, str], kernel_file: Path) -> RunCli:
    """`tdv(*args)` runs the real tritondev CLI in a subprocess with the clean environment."""

    def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env={**kernel_env, **(env or {})}, cwd=kernel_file.parent, timeout=600)

    return _run


def bare_venv(path: Path) -> Path:
    """A real, empty venv (no pip: nothing is installed into it, and it is created in a fraction of a second)."""
    import sys

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"
