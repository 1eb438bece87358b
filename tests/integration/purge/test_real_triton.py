"""The real wheels from the package index: triton 3.9.0, CPU torch 2.13.0, and PyPI's placeholder
`pytorch-triton 0.0.1` whose triton/__init__.py only raises "Should never be installed"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.process.runner import Runner
from bootstrap.purge import pipbridge
from tests.conftest import Cli
from tests.integration.purge.conftest import VenvCopy, listed, run_py, site_packages, snapshot
from tests.support.venvs import triton_venv

pytestmark = pytest.mark.slow


def _install_or_skip(py: Path, *requirements: str) -> None:
    result = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", *requirements],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        pytest.skip(f"package index not reachable for {requirements}: {result.stderr.strip()[-300:]}")


TORCH_FOLDERS = ("torch", "torchgen", "functorch", "torch-2.13.0+cpu.dist-info")


def _torch_into(sp: Path) -> bool:
    """Put the real torch 2.13.0 of the shared triton venv into `sp`: hard-linked, or copied where the test's
    folder is on another filesystem than the venv cache (the tmpfs ./shell/test gives the tests); True if
    copied (750 MB: the test then removes its venv once it passed).

    A byte-identical copy of what pip installed there (same Python, same layout), made in a second
    instead of pip's half minute for the wheel; purge must leave every one of its files alone.
    """
    shared = site_packages(triton_venv())
    try:
        for name in TORCH_FOLDERS:
            shutil.copytree(shared / name, sp / name, copy_function=os.link)
        return False
    except OSError:  # EXDEV, as a shutil.Error: hard links do not cross filesystems
        for name in TORCH_FOLDERS:
            shutil.rmtree(sp / name, ignore_errors=True)
            shutil.copytree(shared / name, sp / name)
        return True


def test_pip_list_of_the_target_through_the_runner() -> None:
    py = triton_venv()  # shared, read-only here
    runner = Runner()
    found = pipbridge.installed(runner, py)
    assert found["triton"].version == "3.9.0" and "torch" in found
    assert "typer" not in found  # tritondev's own environment was not the one asked
    assert any(c.argv[:5] == (str(py), "-m", "pip", "list", "-v") for c in runner.history)


@pytest.mark.slow
def test_placeholder_over_real_triton_purged_torch_untouched_restored(
    cli: Cli, venv_copy: VenvCopy, tmp_path: Path
) -> None:
    py = venv_copy()
    sp = site_packages(py)
    copied = _torch_into(sp)
    _install_or_skip(py, "triton==3.9.0")
    _install_or_skip(py, "pytorch-triton==0.0.1")  # the field mistake: `pip install pytorch-triton`
    assert "Should never be installed" in run_py(py, "import triton").stderr
    torch_before = snapshot(sp / "torch")
    ws = tmp_path / "ws"

    result = cli("purge", "--python", str(py), "--workspace", str(ws), "--json")
    assert result.returncode == 0, result.stderr
    scan = json.loads(result.stdout)["scan"]  # what was found before anything was removed
    owners = {o["name"]: o for o in scan["owners"]}
    assert set(owners) == {"triton", "pytorch-triton"}
    assert owners["pytorch-triton"]["placeholder"] and not owners["triton"]["placeholder"]
    assert owners["triton"]["files"] > 100
    assert scan["overlaps"]["triton/__init__.py"] == ["pytorch-triton", "triton"]
    assert "Should never be installed" in scan["import_error"]

    assert run_py(py, "import triton").returncode != 0
    assert not (sp / "triton").exists()
    assert snapshot(sp / "torch") == torch_before
    version = run_py(py, "import importlib.metadata as m; print(m.version('torch'))")
    assert version.stdout.strip().startswith("2.13.0")  # torch's metadata and every file of it stay

    restored = cli("purge", "--restore", "--workspace", str(ws), "--json")
    assert restored.returncode == 0, restored.stderr
    report = json.loads(restored.stdout)
    assert [r["name"] for r in report["restored"]] == ["triton"]
    assert [s["name"] for s in report["skipped"]] == ["pytorch-triton"]  # the placeholder stays away
    assert listed(py)["triton"] == "3.9.0" and "pytorch-triton" not in listed(py)
    check = run_py(py, "import triton, triton.language; print(triton.__version__)")
    assert check.stdout.strip() == "3.9.0", check.stderr
    if copied:  # in the run's tmpfs, which is memory, a passed test gives its venv's 1.8 GB back
        shutil.rmtree(py.parents[1])
