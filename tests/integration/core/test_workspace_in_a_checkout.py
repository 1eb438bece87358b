"""Cloning tritondev as ~/tritondev makes its own checkout the default workspace: setup refuses to fill a git
checkout that is not a workspace with src/, venv/ and state/, doctor says so, and a tritondev.toml makes a
folder a workspace on purpose."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.support.snapshot import diff, snapshot

RAW = "raw+https://raw.nowhere.invalid/pytorch/pytorch"  # never resolves: a real run would stop at the pins


def _clone_of_tritondev(home: Path) -> Path:
    checkout = home / "tritondev"
    (checkout / "shell").mkdir(parents=True)
    (checkout / "bootstrap").mkdir()
    (checkout / "shell" / "tritondev").write_text("#!/bin/sh\n")
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    return checkout


def test_setup_refuses_its_own_checkout_as_the_default_workspace(cli: Cli, clean_env: dict[str, str]) -> None:
    home = Path(clean_env["HOME"])
    checkout = _clone_of_tritondev(home)
    before = snapshot(checkout)
    for extra in (["--dry-run"], []):
        proc = cli("setup", "--pytorch-url", RAW, *extra, cwd=home)
        assert proc.returncode == 2, proc.stderr
        assert f"error: workspace {checkout} is tritondev's own checkout, not a workspace" in proc.stderr
        assert f"fix: choose another folder: --workspace {home / 'tritondev-work'}" in proc.stderr
    assert diff(before, snapshot(checkout)) == []
    doctor = cli("doctor", "--check", "workspace.location", "--json", cwd=home)
    assert doctor.returncode == 1
    assert checks_of(doctor.stdout)["workspace.location"]["status"] == "error"
    # On purpose: a tritondev.toml makes it a workspace; setup goes on (and stops offline at the pins).
    (checkout / "tritondev.toml").write_text("")
    on_purpose = cli("setup", "--pytorch-url", RAW, "--dry-run", cwd=home)
    assert on_purpose.returncode == 4 and "not a workspace" not in on_purpose.stderr


def test_any_other_git_checkout_is_refused_too(cli: Cli, tmp_path: Path) -> None:
    repo = tmp_path / "my project"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    proc = cli("setup", "--workspace", str(repo), "--pytorch-url", RAW)
    assert proc.returncode == 2 and f"workspace {repo} is a git checkout, not a workspace" in proc.stderr
    assert sorted(p.name for p in repo.iterdir()) == [".git"]
