"""Bad inputs: a clear message, the documented exit code, no traceback, and nothing changed."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, Cli
from tests.integration.doctor.conftest import odd_interpreter
from tests.integration.purge.conftest import VenvCopy, Wheels, listed, pip, site_packages, snapshot

NO_TRACEBACK = "Traceback"


def test_python_that_is_not_an_interpreter(cli: Cli, tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho not python\n")
    fake.chmod(0o755)
    ws = tmp_path / "ws"
    for bad in (fake, tmp_path / "missing" / "python", Path("/etc/hostname")):
        result = cli("purge", "--python", str(bad), "--workspace", str(ws))
        assert result.returncode == 2, result.stderr
        assert "error:" in result.stderr and "fix:" in result.stderr and NO_TRACEBACK not in result.stderr
    result = cli("purge", "--python", str(fake), "--workspace", str(ws), "--json")
    assert result.returncode == 2 and json.loads(result.stdout)["exit_code"] == 2
    assert not ws.exists()  # not even the workspace was created


def test_system_python_is_refused_without_system(cli: Cli, tmp_path: Path) -> None:
    system = Path("/usr/bin/python3")
    if not system.exists():
        pytest.skip("no system Python at /usr/bin/python3 on this machine")
    ws = tmp_path / "ws"
    result = cli("purge", "--python", str(system), "--workspace", str(ws))
    assert result.returncode == 2
    assert "system Python" in result.stderr and "--system" in result.stderr
    # With consent, a dry run reads the system Python and still changes nothing.
    dry = cli("purge", "--python", str(system), "--workspace", str(ws), "--system", "--dry-run", "--json")
    assert dry.returncode in (0, 2), dry.stderr  # 2 only if Debian installed a RECORD-less triton
    assert NO_TRACEBACK not in dry.stderr
    assert not ws.exists()


def test_distribution_without_record_blocks_the_purge(
    cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path
) -> None:
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.triton), str(wheels.pytorch_triton))
    sp = site_packages(py)
    record = next(sp.glob("pytorch_triton-*.dist-info")) / "RECORD"
    record.unlink()
    before = snapshot(sp)
    ws = tmp_path / "ws"
    for extra in ((), ("--dry-run",)):
        result = cli("purge", "--python", str(py), "--workspace", str(ws), *extra)
        assert result.returncode == 2, result.stderr
        assert "pytorch-triton" in result.stderr and "no RECORD" in result.stderr
        assert "--force-reinstall" in result.stderr and NO_TRACEBACK not in result.stderr
    assert snapshot(sp) == before
    assert not (ws / "state" / "purge-journal.json").exists()


def _can_mount_read_only(folder: Path) -> bool:
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount --bind '{folder}' '{folder}' && mount -o remount,bind,ro '{folder}'"],
        capture_output=True,
    )
    return probe.returncode == 0


def test_read_only_site_packages(
    clean_env: dict[str, str], venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path
) -> None:
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.triton))
    sp = site_packages(py)
    if shutil.which("unshare") is None or not _can_mount_read_only(sp):
        pytest.skip("needs `unshare -m` and mount privileges to make site-packages read-only")
    before = snapshot(sp)
    ws = tmp_path / "ws"
    # A private mount namespace where site-packages is a read-only bind mount: as for a user whose
    # environment lives on a read-only image, root included.
    script = (
        f"mount --bind '{sp}' '{sp}' && mount -o remount,bind,ro '{sp}' && "
        f"exec '{sys.executable}' -m bootstrap purge --python '{py}' --workspace '{ws}'"
    )
    env = {**clean_env, "PYTHONPATH": str(REPO)}
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env)
    assert result.returncode == 2, result.stderr
    assert "not writable" in result.stderr and NO_TRACEBACK not in result.stderr
    assert snapshot(sp) == before
    assert "triton" in listed(py)


def test_locked_workspace(cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.triton))
    sp = site_packages(py)
    before = snapshot(sp)
    ws = tmp_path / "ws"
    (ws / "state").mkdir(parents=True)
    with open(ws / "state" / "lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write(f"pid {os.getpid()} setup\n")
        held.flush()
        result = cli("purge", "--python", str(py), "--workspace", str(ws))
    assert result.returncode == 6, result.stderr
    assert "locked" in result.stderr
    assert snapshot(sp) == before


def test_target_without_pip(cli: Cli, wheels: Wheels, tmp_path: Path) -> None:
    venv = tmp_path / "nopip"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    # Installed by tritondev's own pip into that venv (pip --python), which then has no pip of its own.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheels.triton)],
        check=True,
    )
    sp = site_packages(py)
    before = snapshot(sp)
    scan = cli("purge", "--python", str(py), "--workspace", str(tmp_path / "ws"), "--dry-run", "--json")
    assert scan.returncode == 3, scan.stderr
    assert "ensurepip" in scan.stderr
    assert json.loads(scan.stdout)["exit_code"] == 3
    assert snapshot(sp) == before


def test_import_check_that_answers_wrongly_is_reported(cli: Cli, venv_copy: VenvCopy, tmp_path: Path) -> None:
    """The scan stands; `import triton` is reported as not checked, with the field that was wrong."""
    python = odd_interpreter(tmp_path / "odd", venv_copy(), {"tritondev_triton.py": '{"file": null, "path": "x"}'})
    result = cli("purge", "--python", str(python), "--workspace", str(tmp_path / "ws"), "--dry-run", "--json")
    assert result.returncode == 0, result.stderr
    assert NO_TRACEBACK not in result.stderr
    scan = json.loads(result.stdout)["scan"]
    assert scan["import_location"] is None
    assert "import check" in scan["import_error"] and "'path' is str, not list" in scan["import_error"]
