"""The process runner: echo, dry-run, logs, git hardening, typed errors (real processes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bootstrap.core.errors import ExitCode, ToolMissing
from bootstrap.core.process.runner import Runner


def make(tmp_path: Path, dry_run: bool = False) -> tuple[Runner, list[str]]:
    echoed: list[str] = []
    runner = Runner(log_dir=tmp_path / "logs", echo=echoed.append, dry_run=dry_run)
    return runner, echoed


def test_dry_run_records_but_does_not_run(tmp_path: Path) -> None:
    runner, echoed = make(tmp_path, dry_run=True)
    marker = tmp_path / "marker"
    result = runner.run([sys.executable, "-c", f"open({str(marker)!r}, 'w')"], step="change", env={"A": "1"})
    assert result.dry_run and not marker.exists()
    assert echoed[0].startswith("[dry-run] A=1 ")
    assert runner.history[0].env == (("A", "1"),)


def test_missing_tool_is_tool_missing(tmp_path: Path) -> None:
    runner, _ = make(tmp_path)
    with pytest.raises(ToolMissing) as info:
        runner.run(["definitely-not-a-tool-xyz"], step="x")
    assert info.value.exit_code == ExitCode.TOOL_MISSING


def test_a_path_put_in_front_of_the_inherited_one_is_echoed_short(monkeypatch: pytest.MonkeyPatch) -> None:
    from bootstrap.core.process.command_record import PlannedCommand

    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    planned = PlannedCommand(("lit", "-v"), None, (("PATH", "/ws/venv/bin:/usr/local/bin:/usr/bin:/bin"),), "test")
    assert planned.render() == "PATH=/ws/venv/bin:$PATH lit -v"
    other = PlannedCommand(("lit",), None, (("PATH", "/only/this"),), "test")
    assert other.render() == "PATH=/only/this lit"


def test_a_command_that_says_the_disk_is_full_is_a_full_disk_whatever_fix_was_expected(tmp_path: Path) -> None:
    from bootstrap.core.errors import FULL_DISK_FIX, CommandFailed

    for said in (
        "OSError: [Errno 28] No space left on device: '/w/venv/lib'",
        "fatal: write error: Disk quota exceeded",
    ):
        failed = CommandFailed(
            ["python3", "-m", "venv", "/w/venv"],
            1,
            tmp_path / "venv.log",
            ["x", said, "y"],
            fix="install the venv module: apt-get install python3-venv",
        )
        assert failed.exit_code == ExitCode.EXTERNAL_FAILED
        assert f"failed: the disk is full ({said.strip()})" in failed.message and failed.fix == FULL_DISK_FIX
    other = CommandFailed(
        ["python3", "-m", "venv", "/w/venv"],
        1,
        tmp_path / "venv.log",
        ["No module named venv"],
        fix="install the venv module: apt-get install python3-venv",
    )
    assert "disk" not in other.message and other.fix and "python3-venv" in other.fix
