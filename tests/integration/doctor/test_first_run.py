"""The first run on a machine whose `python3` holds torch and Triton and where nothing is activated
(the norm in CUDA containers and clusters): a fresh HOME, no --python, no VIRTUAL_ENV/CONDA_PREFIX,
no workspace venv. The reading commands find that python3 and say so; nothing is created.

Here the python3 first on PATH is a cached venv's interpreter with the real triton and torch wheels
(not activated: only its bin folder is on PATH); the test process's own interpreter, which runs
tritondev, sits on PATH too and must be passed over. On this machine verify runs the kernels under
Triton's interpreter; the `gpu` variant uses the GPU machine's own python3 as it is.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bootstrap.core.target.interpreter import PATH_PYTHON
from tests.conftest import Cli
from tests.support.venvs import triton_venv

NEEDS_TARGET = "needs the target environment"


@pytest.fixture(scope="module")
def path_python() -> Path:
    return triton_venv().parent / "python3"


def _first_run_env(python_dir: Path | None) -> dict[str, str]:
    # tritondev's own interpreter folder stays on PATH, after the user's python3: it must be skipped.
    own = str(Path(sys.executable).parent)
    folders = ([str(python_dir)] if python_dir else []) + [own, os.environ.get("PATH", "")]
    return {"PATH": os.pathsep.join(folders)}


def _skipped_for_no_target(data: dict[str, Any]) -> list[str]:
    return [c["name"] for c in data["checks"] if c["status"] == "skipped" and NEEDS_TARGET in c["summary"]]


def test_doctor_finds_python3_on_path_and_runs_every_check(
    cli: Cli, path_python: Path, clean_env: dict[str, str]
) -> None:
    home = Path(clean_env["HOME"])
    env = _first_run_env(path_python.parent)
    proc = cli("doctor", "--json", env=env)
    data = json.loads(proc.stdout)
    target = data["target"]
    assert target["executable"] == str(path_python) and target["origin"] == PATH_PYTHON, target
    assert "no workspace venv" in target["reason"]
    assert _skipped_for_no_target(data) == []
    checks = {c["name"]: c for c in data["checks"]}
    assert checks["python.interpreter"]["status"] == "ok" and PATH_PYTHON in checks["python.interpreter"]["summary"]
    assert checks["packages.triton-import"]["status"] == "ok", checks["packages.triton-import"]
    assert "torch 2.13.0" in checks["packages.torch-triton"]["summary"]  # it read the torch found there
    text = cli("doctor", "--check", "python", "--check", "packages", env=env)
    assert f"tritondev doctor: {path_python} ({PATH_PYTHON})" in text.stdout
    assert f"target Python: {path_python}" in text.stderr and "no workspace venv" in text.stderr
    assert not (home / "tritondev").exists(), "a reading command created the workspace"


def test_verify_passes_with_python3_on_path(cli: Cli, path_python: Path, clean_env: dict[str, str]) -> None:
    env = _first_run_env(path_python.parent)
    proc = cli("verify", "--json", "--target", "cuda:90", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    assert data["ok"] is True and data["python"] == str(path_python)
    assert data["target_python"]["origin"] == PATH_PYTHON
    assert not (Path(clean_env["HOME"]) / "tritondev").exists()


def test_tritondevs_own_interpreter_is_never_the_fallback(cli: Cli, clean_env: dict[str, str]) -> None:
    """With no other python3 on PATH, the reading commands say there is no target (exit 1), not tritondev's."""
    empty = Path(clean_env["HOME"]) / "empty-bin"
    empty.mkdir()
    own = Path(sys.executable).parent
    proc = cli(
        "doctor", "--json", "--check", "python.interpreter", env={"PATH": os.pathsep.join([str(own), str(empty)])}
    )
    data = json.loads(proc.stdout)
    assert proc.returncode == 1 and data["target"] is None
    assert data["checks"][0]["status"] == "error" and "tritondev setup" in data["checks"][0]["fix"]


def test_setup_still_installs_into_the_workspace_venv_and_says_so(
    cli: Cli, path_python: Path, clean_env: dict[str, str]
) -> None:
    """The fallback is for reading: setup's plan targets <workspace>/venv, not the python3 it found."""
    ws = Path(clean_env["HOME"]) / "ws"
    env = _first_run_env(path_python.parent)
    proc = cli("config", "show", "--json", "--workspace", str(ws), env=env)
    python = json.loads(proc.stdout)["settings"]["python"]
    assert python["value"] is None and python["effective"] == str(ws / "venv" / "bin" / "python"), python
    assert str(path_python) in python["note"] and "first python3 on PATH" in python["note"]
    assert not ws.exists()


@pytest.mark.gpu
def test_first_run_on_the_gpu_machine(cli: Cli, clean_env: dict[str, str]) -> None:
    """The GPU machine's own python3 (torch and Triton installed there, nothing activated)."""
    python3 = shutil.which("python3")
    assert python3 is not None
    has = subprocess.run([python3, "-c", "import torch, triton"], capture_output=True)
    if has.returncode != 0:
        pytest.skip(f"{python3} on PATH holds no torch and Triton")
    env = _first_run_env(None)
    data = json.loads(cli("doctor", "--json", env=env).stdout)
    assert data["target"]["origin"] == PATH_PYTHON and _skipped_for_no_target(data) == []
    checks = {c["name"]: c for c in data["checks"]}
    assert checks["packages.triton-import"]["status"] == "ok"
    proc = cli("verify", "--json", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    verified = json.loads(proc.stdout)
    assert verified["mode"] == "gpu" and verified["target_python"]["origin"] == PATH_PYTHON


def test_the_report_names_the_target_whatever_checks_ran(cli: Cli, path_python: Path) -> None:
    """A selection of checks that never needed the target still reports the one chosen."""
    text = cli("doctor", "--check", "workspace.dirty", env=_first_run_env(path_python.parent))
    assert f"tritondev doctor: {path_python} ({PATH_PYTHON})" in text.stdout, text.stdout
    assert "no target environment" not in text.stdout
    data = json.loads(cli("doctor", "--check", "ptxas.arch", "--json", "--python", str(path_python)).stdout)
    assert data["target"]["executable"] == str(path_python) and data["target"]["origin"] == "--python"
