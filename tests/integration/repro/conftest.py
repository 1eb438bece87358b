"""Fixtures for `tritondev repro`: the real Triton 3.9 wheel (CPU torch), a clean environment, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli
from tests.support.environ import child_environ
from tests.support.venvs import triton_venv

Tdv = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def triton_python() -> Path:
    return triton_venv()


@pytest.fixture
def repro_env(tmp_path: Path) -> dict[str, str]:
    """No TRITONDEV_/TRITON_ variables or active venv; a private HOME, Triton cache and workspace."""
    home = tmp_path / "home"
    home.mkdir()
    env = child_environ("TORCHINDUCTOR_")
    # The caller's PYTHONPATH stays behind tritondev's checkout (a GPU machine may bring packages that way).
    python_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env.update(
        HOME=str(home),
        PYTHONPATH=python_path,
        TRITON_CACHE_DIR=str(home / "triton-cache"),
        TRITONDEV_WORKSPACE=str(home / "ws"),
    )
    return env


@pytest.fixture
def tdv(repro_env: dict[str, str], tmp_path: Path) -> Tdv:
    """`tdv(*args, env=...)`: the real CLI with the clean environment, run in tmp_path/work."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)

    def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env={**repro_env, **(env or {})}, cwd=work, timeout=900)

    return _run


def write_program(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "work" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def json_of(proc: subprocess.CompletedProcess[str]) -> Any:
    """The one JSON document on stdout (nothing else may be there)."""
    return json.loads(proc.stdout)


def run_repro(
    python: Path, folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), str(folder / "repro.py"), *args], capture_output=True, text=True, env=env, timeout=900
    )
