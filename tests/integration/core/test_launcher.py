"""shell/tritondev on a fresh checkout: creates its private venv, execs the CLI, rebuilds when stale."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tracked files, as a fresh clone would have them."""
    dest = tmp_path_factory.mktemp("clone") / "tritondev"
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src = REPO / os.fsdecode(name)
        if src.is_file():
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    return dest


def launch(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITONDEV_", "VIRTUAL_ENV"))}
    return subprocess.run(
        [str(checkout / "shell/tritondev"), *args], capture_output=True, text=True, env=env, timeout=600
    )


def test_first_run_creates_private_venv_and_runs(checkout: Path) -> None:
    result = launch(checkout, "--help")
    assert result.returncode == 0, result.stderr
    assert "config" in result.stdout
    assert (checkout / ".venv-tool/bin/tritondev").exists()
    assert "preparing its own environment" in result.stderr


def test_second_run_reuses_venv_and_passes_exit_codes(checkout: Path) -> None:
    venv_python = checkout / ".venv-tool/bin/python"
    before = venv_python.stat().st_ino
    result = launch(checkout, "config", "show", "--workspace", "/proc/definitely/not")
    assert "preparing" not in result.stderr
    assert result.returncode == 0
    bad = launch(checkout, "no-such-command")
    assert bad.returncode == 2
    assert venv_python.stat().st_ino == before


def test_changed_pyproject_rebuilds_venv(checkout: Path) -> None:
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# changed\n")
    result = launch(checkout, "--version")
    assert result.returncode == 0, result.stderr
    assert "preparing its own environment" in result.stderr
