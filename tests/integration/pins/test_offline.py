"""Offline, as a new user on a plane meets it: a host name that does not resolve is said once and never
retried, for the raw download and git alike; the fix is --triton-commit, and what is known here (the
installed torch's `Requires-Dist: triton==X`) is said. A dry run whose real run would certainly fail
(no pins, a workspace that cannot be made) says so and exits as that run would. `.invalid` names never
resolve (RFC 2606), so these hold on a machine with a network too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.support.venvs import fresh_venv

GITHUB_LIKE = "https://github.invalid/pytorch/pytorch.git"
RAW = "raw+https://raw.nowhere.invalid/pytorch/pytorch"


@pytest.mark.parametrize("url", [GITHUB_LIKE, RAW], ids=["git", "raw"])
def test_an_unresolvable_host_is_one_error_without_retries(cli: Cli, tmp_path: Path, url: str) -> None:
    started = time.monotonic()
    proc = cli("pins", "--workspace", str(tmp_path / "ws"), "--pytorch-url", url, "-v")
    assert proc.returncode == 4, proc.stderr
    assert "retrying in" not in proc.stderr  # a name that does not resolve will not in half a second either
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "cannot resolve" in errors[0] and ".invalid" in errors[0], proc.stderr
    assert "no network, or no DNS" in errors[0] and "PyTorch's Triton pin at main cannot be read" in errors[0]
    assert "fix: give the Triton commit yourself: --triton-commit SHA skips PyTorch" in proc.stderr
    assert time.monotonic() - started < 60


def test_what_is_known_here_is_said(cli: Cli, tmp_path: Path) -> None:
    python = fresh_venv(tmp_path / "venv")
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    info = site / "torch-2.11.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n"
        "Requires-Dist: filelock\n"
        'Requires-Dist: triton==3.6.0; platform_system == "Linux"\n'
    )
    proc = cli("pins", "--workspace", str(tmp_path / "ws"), "--python", str(python), "--pytorch-url", RAW)
    assert proc.returncode == 4
    assert "known here: the installed torch 2.11.0 requires triton==3.6.0 (its METADATA)" in proc.stderr


def test_a_dry_run_offline_ends_as_the_real_run_would(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    proc = cli("setup", "--workspace", str(ws), "--pytorch-url", RAW, "--dry-run")
    assert proc.returncode == 4
    shown = proc.stdout + proc.stderr
    assert shown.count("cannot resolve raw.nowhere.invalid") == 1, shown  # once, not as a warning and again
    assert "# build: " in proc.stdout and not ws.exists()


def test_a_dry_run_into_a_workspace_that_cannot_be_made_says_so(cli: Cli, tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    ws = blocker / "ws"
    dry = cli("setup", "--workspace", str(ws), "--pytorch-url", RAW, "--dry-run")
    real = cli("setup", "--workspace", str(ws), "--pytorch-url", RAW)
    assert dry.returncode == real.returncode == 2, dry.stderr
    says = f"error: cannot create workspace folder {ws}: Not a directory\n"
    assert says in dry.stderr and says in real.stderr
    assert blocker.read_text() == ""
