"""`--llvm auto`, the default: a `setup` given no option at all (its settings in the workspace's
tritondev.toml) takes Triton's package when the server has one for the pin, and builds LLVM from
source when it has none, when the host cannot be reached, or when the package fails its sha256; each
time one line says which and why, and the host is asked at most once per pin."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import installed_triton, tritondev
from tests.integration.llvm_sources.conftest import GOOD, MISSING, WRONG_SUM, PrebuiltWorld, fresh_env
from tests.support.venvs import workspace_venv
from tests.world.packages import PackageServer


def plain_setup(
    pw: PrebuiltWorld, base_url: str, ws: Path, build_number: int, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """`tritondev setup` with no option: run in the workspace, whose tritondev.toml holds the mirror,
    the pin and where the packages are served (this machine cannot reach Triton's real host). The
    workspace venv is made ahead (workspace_venv) except for a dry run, which must find nothing made."""
    ws.mkdir(parents=True, exist_ok=True)
    if "--dry-run" not in args and not (ws / "venv").exists():
        workspace_venv(ws)
    (ws / "tritondev.toml").write_text(
        f'mirror = "{pw.world.git_root}"\ntriton_commit = "{pw.pins[build_number]}"\n'
        f'llvm_prebuilt_url = "{base_url}"\njobs = 2\nlink_jobs = 2\nbuild_type = "Release"\n'
    )
    return tritondev("setup", *args, env=env, cwd=ws)


def steps(proc: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert proc.returncode == 0, proc.stderr[-4000:]
    report: dict[str, Any] = json.loads(proc.stdout)
    return {s["step"]: s["status"] for s in report["steps"]}


def heads(server: PackageServer, since: int) -> list[str]:
    return [r.path for r in server.served()[since:] if r.method == "HEAD"]


@pytest.mark.slow
def test_the_pin_has_a_package_it_is_taken_and_asked_for_once(
    prebuilt_world: PrebuiltWorld, package_server: PackageServer, shared_ccache: Path, tmp_path: Path
) -> None:
    env, ws = fresh_env(tmp_path, shared_ccache), tmp_path / "ws"
    before = len(package_server.served())
    proc = plain_setup(prebuilt_world, package_server.base_url, ws, GOOD, env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "llvm: auto -> prebuilt: Triton's package for this pin exists" in proc.stderr
    assert len(heads(package_server, before)) == 1
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert Path(facts["llvm_syspath"]) == ws / "build" / "llvm" / prebuilt_world.package.name
    assert not (ws / "src" / "llvm-project").exists()
    # Asked once per pin: a second run asks nobody, keeps the package and does nothing.
    again_from = len(package_server.served())
    again = plain_setup(prebuilt_world, package_server.base_url, ws, GOOD, env, "--json")
    assert steps(again)["llvm-download"] == "up to date"
    assert package_server.served()[again_from:] == []
    memory = json.loads((ws / "state" / "llvm-auto.json").read_text())
    assert memory["chosen"] == {prebuilt_world.world.llvm_commit: "prebuilt"}


def test_a_pin_without_a_package_is_built_from_source_and_says_why(
    prebuilt_world: PrebuiltWorld, package_server: PackageServer, shared_ccache: Path, tmp_path: Path
) -> None:
    env, ws = fresh_env(tmp_path, shared_ccache), tmp_path / "ws"
    before = len(package_server.served())
    proc = plain_setup(prebuilt_world, package_server.base_url, ws, MISSING, env, "--json")
    ran = steps(proc)
    assert ran["llvm-configure"] == ran["llvm-build"] == "ran" and "llvm-download" not in ran
    line = next(line for line in proc.stderr.splitlines() if line.startswith("llvm: auto"))
    assert line.startswith("llvm: auto -> source: Triton publishes no package for this pin") and "HTTP 404" in line
    assert [r.method for r in package_server.served()[before:]] == ["HEAD"]  # asked once, nothing downloaded
    report = json.loads(proc.stdout)
    assert report["llvm"]["auto"]["choice"] == "source"
    assert "LLVM/MLIR is built from source: about" in report["llvm"]["source_build_cost"]
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert facts["llvm_commit"] == prebuilt_world.world.llvm_commit


@pytest.mark.slow
def test_a_package_that_fails_its_sum_falls_back_to_a_source_build(
    prebuilt_world: PrebuiltWorld, package_server: PackageServer, shared_ccache: Path, tmp_path: Path
) -> None:
    env, ws = fresh_env(tmp_path, shared_ccache), tmp_path / "ws"
    proc = plain_setup(prebuilt_world, package_server.base_url, ws, WRONG_SUM, env, "--json")
    ran = steps(proc)  # exit 0: where --llvm source succeeds, auto does too
    assert ran["llvm-build"] == "ran"
    lines = [line for line in proc.stderr.splitlines() if line.startswith("llvm: auto")]
    assert lines[0].startswith("llvm: auto -> prebuilt")
    assert lines[1].startswith("llvm: auto -> source: the package could not be used here") and "sha256" in lines[1]
    assert not (ws / "build" / "llvm" / prebuilt_world.name(WRONG_SUM)).exists()
    memory = json.loads((ws / "state" / "llvm-auto.json").read_text())
    assert [a["answer"] for a in memory["answers"].values()] == ["unusable"]


def test_an_unreachable_host_plans_a_source_build(
    prebuilt_world: PrebuiltWorld, shared_ccache: Path, tmp_path: Path
) -> None:
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/llvm-builds"
    ws = tmp_path / "ws"
    proc = plain_setup(prebuilt_world, url, ws, GOOD, fresh_env(tmp_path, shared_ccache), "--dry-run")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "llvm: auto -> source: the package host cannot be reached (cannot connect" in proc.stderr
    assert "llvm-configure (would run)" in proc.stdout
    assert sorted(p.name for p in ws.iterdir()) == ["tritondev.toml"]  # a dry run writes nothing


@pytest.mark.slow
def test_the_package_an_earlier_pip_install_left_in_triton_home_is_copied_not_downloaded(
    prebuilt_world: PrebuiltWorld, shared_ccache: Path, tmp_path: Path
) -> None:
    """Triton's own setup.py unpacked the pin's package into ~/.triton/llvm/<name> for an earlier `pip install
    -e .`; the host cannot be reached now. auto takes that package (it names the pin), copies it into the
    workspace and says so: nothing is asked of the host, no source build."""
    import socket
    import tarfile

    env = fresh_env(tmp_path, shared_ccache)
    triton_llvm = Path(env["HOME"]) / ".triton" / "llvm"
    triton_llvm.mkdir(parents=True)
    with tarfile.open(prebuilt_world.package.path) as tar:
        tar.extractall(triton_llvm, filter="data")
    left = triton_llvm / prebuilt_world.package.name
    before = sorted(str(p.relative_to(left)) for p in left.rglob("*"))
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/llvm-builds"
    ws = tmp_path / "ws"
    proc = plain_setup(prebuilt_world, url, ws, GOOD, env, "--json", "--skip-verify")
    ran = steps(proc)
    assert ran["llvm-download"] == "ran" and "llvm-build" not in ran
    assert f"llvm: auto -> prebuilt: Triton's package for this pin is already on this machine ({left}" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["llvm"]["download"]["copied_from"] == str(left)
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert Path(facts["llvm_syspath"]) == ws / "build" / "llvm" / prebuilt_world.package.name
    assert facts["llvm_commit"] == prebuilt_world.world.llvm_commit
    assert sorted(str(p.relative_to(left)) for p in left.rglob("*")) == before  # yours, left as it was
