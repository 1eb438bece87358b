"""The plan's promises on real runs: the target interpreter is probed once per command, `build` and
`setup` share one reinstall decision, the state file `build` reads is refused when it is not ours,
and the CMake a Triton commit asks for is the CMake setup (and doctor) require."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import base_env, git, setup_args, setup_json, tritondev
from tests.support.run_shared import warm_ccache
from tests.support.snapshot import diff, snapshot
from tests.support.venvs import workspace_venv
from tests.world.world import World

pytestmark = pytest.mark.slow
PROBE = "tritondev_interpreter.py"  # the interpreter probe's script, named in its echoed command line


@pytest.fixture(scope="module")
def built(world: World, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A finished setup of the root-json era in a workspace venv (Release: the quickest build)."""
    root = tmp_path_factory.mktemp("plan")
    ws = root / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=warm_ccache())
    report = setup_json(world, ws, "root-json", "--build-type", "Release", "--skip-verify", env=env)
    return {"ws": ws, "env": env, "report": report}


def _probes(stderr: str) -> int:
    return sum(1 for line in stderr.splitlines() if PROBE in line)


def test_setup_probes_the_target_once(built: dict[str, Any], world: World, tmp_path: Path) -> None:
    ws, env = built["ws"], built["env"]
    noop = tritondev(*setup_args(world, ws, "root-json", "--build-type", "Release", "--skip-verify", "-v"), env=env)
    assert noop.returncode == 0, noop.stderr[-3000:]
    assert "Everything is up to date" in noop.stdout
    assert _probes(noop.stderr) == 1, noop.stderr
    # --python: precheck judges it (one probe) and setup asks the context again, which remembers. A
    # --dry-run echoes nothing, so the interpreter itself counts how often it is asked.
    calls = tmp_path / "calls"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/bash\necho "$*" >> "{calls}"\nexec "{ws / "venv/bin/python"}" "$@"\n')
    python.chmod(0o755)
    other = tmp_path / "ws-python"
    dry = tritondev(*setup_args(world, other, "root-json", "--python", str(python), "--dry-run"), env=env)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert _probes(calls.read_text()) == 1, calls.read_text()
    assert not other.exists()


def test_build_records_the_edits_it_built(built: dict[str, Any], world: World) -> None:
    """One reinstall decision: a C++ edit is ninja's (no pip), and once `build` built it, setup run on the
    same edits (--allow-dirty) finds Triton up to date instead of installing it again."""
    ws, env = built["ws"], built["env"]
    source = ws / "src/triton/lib/Dialect/Triton/IR/Ops.cpp"
    original = source.read_text()
    try:
        source.write_text(original + "\n// edited\n")
        proc = tritondev("build", "--workspace", str(ws), "--json", "-v", env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        data = json.loads(proc.stdout)
        assert data["reinstalled"] is False and [c["argv"][0] for c in data["commands"]] == ["ninja"]
        again = setup_json(world, ws, "root-json", "--build-type", "Release", "--skip-verify", "--allow-dirty", env=env)
        status = {s["step"]: s["status"] for s in again["steps"]}
        assert status["triton-install"] == "up to date", again["steps"]
        assert status["checkout-triton"] == "up to date"
    finally:
        source.write_text(original)
    # Back to the pinned sources: built once more by ninja, and setup agrees again (it only verifies the
    # rebuilt install, which runs no command).
    assert tritondev("build", "--workspace", str(ws), env=env).returncode == 0
    last = setup_json(world, ws, "root-json", "--build-type", "Release", "--skip-verify", env=env)
    status = {s["step"]: s["status"] for s in last["steps"]}
    assert status["triton-install"] == "up to date" and last["commands"] == [], last["steps"]
    assert [name for name, value in status.items() if value != "up to date"] == ["verify"]


@pytest.mark.parametrize(
    "content", ["{ not json", json.dumps({"triton_src": "/x", "python": "/y"})], ids=["not-json", "old-untyped"]
)
def test_build_refuses_a_state_file_that_is_not_ours(tmp_path: Path, content: str) -> None:
    ws = tmp_path / "ws"
    (ws / "state").mkdir(parents=True)
    (ws / "state" / "setup.json").write_text(content)
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    before = snapshot(ws)
    proc = tritondev("build", "--workspace", str(ws), env=env)
    assert proc.returncode == 2, proc.stderr
    assert "is not a setup state this tritondev can read" in proc.stderr
    # The fix repeats the workspace the user named (fix lines repeat the options that chose the target).
    assert f"run `tritondev setup --workspace {ws}` again" in proc.stderr and "Traceback" not in proc.stderr
    json_proc = tritondev("build", "--workspace", str(ws), "--json", env=env)
    assert json_proc.returncode == 2 and json.loads(json_proc.stdout)["exit_code"] == 2
    changed = [c for c in diff(before, snapshot(ws)) if not c.endswith(("/logs", "/state/lock"))]
    assert changed == []


def _triton_asking_for_cmake(world: World, tmp_path: Path, version: str) -> tuple[Path, str]:
    """A copy of the world's Triton repository with one more commit: CMakeLists.txt asks for `version`."""
    repo, work = tmp_path / "triton.git", tmp_path / "triton-work"
    subprocess.run(["git", "clone", "-q", "--bare", str(world.bare["triton"]), str(repo)], check=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(work)], check=True)
    git(work, "checkout", "-q", world.triton_commits["root-json"])
    lists = work / "CMakeLists.txt"
    text = lists.read_text()
    lists.write_text(text.replace("cmake_minimum_required(VERSION 3.20)", f"cmake_minimum_required(VERSION {version})"))
    git(work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "needs a newer cmake")
    git(work, "push", "-q", "origin", "HEAD:refs/heads/needs-new-cmake")
    return repo, git(work, "rev-parse", "HEAD")


def test_the_pinned_cmake_minimum_is_required(world: World, tmp_path: Path) -> None:
    repo, commit = _triton_asking_for_cmake(world, tmp_path, "99.1")
    ws = tmp_path / "ws"
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    args = setup_args(world, ws, "root-json", "--dry-run")
    args[args.index("--triton-commit") + 1] = commit
    proc = tritondev(*args, "--triton-url", str(repo), env=env)
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "this Triton needs cmake >= 99.1" in proc.stderr and "Traceback" not in proc.stderr
    assert not ws.exists()
    # doctor applies the same rule to the workspace's checkout
    checkout = ws / "src" / "triton"
    checkout.mkdir(parents=True)
    (checkout / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 99.1)\n")
    doctor = tritondev("doctor", "--check", "toolchain.cmake", "--json", "--workspace", str(ws), env=env)
    check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "toolchain.cmake")
    assert doctor.returncode == 1 and check["status"] == "error"
    assert "older than 99.1" in check["summary"] and "cmake>=99.1" in check["fix"]


def _folders_read(checkout: Path) -> int:
    """Folders the check for local changes reads in `checkout` (git's own trace2 counter); -1 when it
    used no untracked cache at all."""
    from bootstrap.core.process.runner import Runner
    from bootstrap.git import local_changes

    trace = checkout.parent / f"{checkout.name}.trace2"
    argv = local_changes._status_argv(
        checkout, local_changes.read_config(checkout, Runner(silent=True), "t"), write=False
    )
    subprocess.run(argv, env={"PATH": "/usr/bin:/bin", "GIT_TRACE2_PERF": str(trace)}, check=True, capture_output=True)
    counts = [int(line.rsplit("opendir:", 1)[1]) for line in trace.read_text().splitlines() if "opendir:" in line]
    trace.unlink()
    return sum(counts) if counts else -1


def test_setup_leaves_its_checkouts_so_the_next_check_reads_only_what_changed(built: dict[str, Any]) -> None:
    """setup writes git's untracked cache into the checkouts it cloned, once everything is written, so
    that a no-op's check for local changes does not read every folder of llvm-project again."""
    llvm = built["ws"] / "src" / "llvm-project"
    folders = sum(1 for p in llvm.rglob("*") if p.is_dir() and ".git" not in p.parts)
    assert folders > 20
    assert 0 <= _folders_read(llvm) <= 1  # at most the root, if it changed in the very second of the cache
