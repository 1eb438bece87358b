"""Upstream's behaviour era by era, as a user meets it: the 3.4-3.6 root setup.py era from nothing to a
verified install, online and --offline on a machine where both are possible; the installed Triton
finds ptxas in a fresh shell either way; the hand-configured preset configures; a pin only a fork has
names the fork. (Real git, cmake, ninja, pip and the test world's downloads: tests/world/downloads.py.)
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bootstrap.pipeline.host.buildtree import read_cmake_cache, triton_cmake_dirs
from tests.integration.build.harness import (
    base_env,
    checkout_state,
    setup_args,
    setup_json,
    system_cuda_and_json,
    tritondev,
)
from tests.support.environ import child_environ
from tests.support.run_shared import warm_ccache
from tests.support.venvs import fresh_venv, workspace_venv
from tests.world.world import World

pytestmark = pytest.mark.slow


def fresh_shell_ptxas(python: Path, cwd: Path) -> str:
    """What the installed Triton finds, asked as a user's new shell would (no tritondev variables)."""
    env = child_environ("LLVM_", "JSON_")
    code = "from triton import knobs\nt = knobs.nvidia.ptxas\nprint(t.path, t.version)\n"
    proc = subprocess.run([str(python), "-c", code], env=env, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def root_setup(world: World, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The 3.4-3.6 era (root setup.py, -DLLVM_SYSPATH always), online, into a target venv holding
    cmake<4 (as python/requirements.txt of 3.4 on asks), with a user's stray TRITON_PTXAS_PATH and
    TRITON_BUILD_DIR in the environment and an offline build possible on this machine."""
    root = tmp_path_factory.mktemp("eras")
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=warm_ccache())
    env.update(
        system_cuda_and_json(root),
        TRITON_PTXAS_PATH=str(root / "cuda/bin/ptxas"),
        TRITON_BUILD_DIR=str(root / "elsewhere"),
    )
    target = fresh_venv(root / "target", ["cmake>=3.20,<4"])
    ws = root / "ws"
    report = setup_json(world, ws, "root-setup", "--python", str(target), env=env)
    return {"root": root, "ws": ws, "env": env, "python": target, "report": report}


def test_online_setup_bundles_the_pinned_tools_found_in_a_fresh_shell(root_setup: dict[str, Any]) -> None:
    ws, report, python = root_setup["ws"], root_setup["report"], root_setup["python"]
    assert report["verify"]["provenance"]["ok"] is True
    tools = report["verify"]["tools"]
    bundled = ws / "src/triton/python/triton/backends/nvidia/bin"
    assert tools["ok"] and tools["tools"]["ptxas"] == {"path": str(bundled / "ptxas"), "version": "12.8"}
    # The user's TRITON_PTXAS_PATH was kept from setup.py: upstream then bundles its pinned ptxas (12.8),
    # not the system's (12.6) - and the install finds it with no variable set.
    assert fresh_shell_ptxas(python, root_setup["root"]) == f"{bundled / 'ptxas'} 12.8"
    notice = next(n for n in report["notices"] if "not passed to setup.py" in n)
    assert "TRITON_BUILD_DIR" in notice and "TRITON_PTXAS_PATH" in notice
    assert not (root_setup["root"] / "elsewhere").exists() and triton_cmake_dirs(ws / "src/triton")
    # setup.py ran the target's cmake<4 (its bin/ first on PATH), not the system's.
    cache = read_cmake_cache(triton_cmake_dirs(ws / "src/triton")[0] / "CMakeCache.txt")
    assert cache["CMAKE_COMMAND"].startswith(str(python.parent.parent))  # the venv's cmake package
    assert cache["LLVM_SYSPATH"] == report["llvm_build"]  # this era's setup.py always passes it


def test_the_hand_configured_preset_configures_this_era(root_setup: dict[str, Any]) -> None:
    """3.4-3.6 CMakeLists.txt stops without LLVM_SYSPATH and TRITON_WHEEL_DIR: the preset passes both."""
    ws, env = root_setup["ws"], root_setup["env"]
    proc = subprocess.run(
        ["cmake", "--preset", "tritondev"], cwd=ws / "src/triton", env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    preset = json.loads((ws / "src/triton/CMakeUserPresets.json").read_text())["configurePresets"][0]
    variables = preset["cacheVariables"]
    assert variables["TRITON_WHEEL_DIR"].startswith(preset["binaryDir"]) and "TRITON_CACHE_PATH" not in variables
    assert checkout_state(ws / "src/triton")[1] == ""


def test_offline_setup_places_the_systems_tools_where_triton_looks(root_setup: dict[str, Any], world: World) -> None:
    ws, env, python = root_setup["ws"], root_setup["env"], root_setup["python"]
    report = setup_json(world, ws, "root-setup", "--python", str(python), "--offline", env=env)
    status = {s["step"]: s["status"] for s in report["steps"]}
    assert status["triton-install"] == "ran" and status["llvm-build"] == "up to date"
    install = next(c for c in report["commands"] if c["step"] == "triton-install")
    assert install["env"]["TRITON_OFFLINE_BUILD"] == "1" and install["env"]["JSON_SYSPATH"] == env["JSON_SYSPATH"]
    bundled = ws / "src/triton/python/triton/backends/nvidia/bin"
    assert report["verify"]["tools"]["tools"]["ptxas"] == {"path": str(bundled / "ptxas"), "version": "12.6"}
    assert fresh_shell_ptxas(python, root_setup["root"]) == f"{bundled / 'ptxas'} 12.6"
    assert (ws / "src/triton/third_party/nvidia/backend/include/cuda.h").is_file()
    assert checkout_state(ws / "src/triton")[1] == ""  # what was placed is excluded locally
    again = setup_json(world, ws, "root-setup", "--python", str(python), "--offline", env=env)
    assert again["up_to_date"] is True


def test_a_pin_only_a_fork_has_names_the_fork(world: World, tmp_path: Path) -> None:
    """release/3.8.x pins a triton-lang/llvm-project commit: from llvm/llvm-project (here the mirror's
    llvm-project.git) the fetch fails with 'not our ref', and setup says which fork to try."""
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    proc = tritondev(*setup_args(world, ws, "llvm-fork", "--json"), env=env)
    assert proc.returncode == 5, proc.stderr[-3000:]
    error = json.loads(proc.stdout)
    assert world.llvm_fork_commit in error["message"] and "is not in" in error["message"]
    assert "--llvm-url https://github.com/triton-lang/llvm-project.git" in error["fix"]
    assert not (ws / "build" / "llvm").exists() or not any((ws / "build" / "llvm").iterdir())
    # The fork named has it: the same checkout from there gets the pinned commit.
    fork = tritondev(
        *setup_args(world, ws, "llvm-fork", "--llvm-url", str(world.bare["llvm-project-fork"]), "--dry-run", "--json"),
        env=env,
    )
    assert fork.returncode == 0, fork.stderr[-3000:]
    assert json.loads(fork.stdout)["pins"]["llvm_url"] == str(world.bare["llvm-project-fork"])


def test_a_pin_only_a_fork_has_and_no_file_names_is_fetched_from_the_fork(world: World, tmp_path: Path) -> None:
    """release/3.7.x after #10631: llvm-hash.txt names a triton-lang/llvm-project commit and nothing in the
    commit names the fork. With the GitHub URLs tritondev chooses itself (served here by git's own
    url.<base>.insteadOf, as a site's mirror would be), the fetch from llvm/llvm-project answers "not our
    ref", one line says the fork is tried, and the build goes on against the fork's LLVM."""
    home = tmp_path / "home"
    env = base_env(home, xdg=tmp_path / "xdg", ccache_dir=warm_ccache())
    with (home / ".gitconfig").open("w") as config:
        for slug, name in (("llvm/llvm-project", "llvm-project"), ("triton-lang/llvm-project", "llvm-project-fork")):
            config.write(f'[url "{world.url(name)}"]\n\tinsteadOf = https://github.com/{slug}.git\n')
    ws, sha = tmp_path / "ws", world.triton_commits["llvm-fork-3.7"]
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    proc = tritondev(
        "setup",
        "--workspace",
        str(ws),
        "--triton-url",
        str(world.bare["triton"]),
        "--triton-commit",
        sha,
        "--llvm",
        "source",
        "--jobs",
        "2",
        "--link-jobs",
        "2",
        "--skip-verify",
        "--json",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout)
    line = (
        f"LLVM {world.llvm_fork_commit[:12]} is not in https://github.com/llvm/llvm-project.git: fetching it from"
        " https://github.com/triton-lang/llvm-project.git (Triton pins LLVM backports there)"
    )
    assert proc.stderr.count(line) == 1, proc.stderr[-3000:]
    assert report["pins"]["llvm_commit"] == world.llvm_fork_commit
    assert report["llvm"]["fetched_from"] == {
        "url": "https://github.com/triton-lang/llvm-project.git",
        "why": "Triton pins LLVM backports there",
        "not_in": "https://github.com/llvm/llvm-project.git",
    }
    head = subprocess.run(
        ["git", "-C", str(ws / "src" / "llvm-project"), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert head == world.llvm_fork_commit and not (ws / "src" / "llvm-project.partial").exists()
    steps = {s["step"]: s["status"] for s in report["steps"]}
    assert steps["llvm-build"] == "ran" and steps["triton-install"] == "ran"
    again = tritondev(
        "setup",
        "--workspace",
        str(ws),
        "--triton-url",
        str(world.bare["triton"]),
        "--triton-commit",
        sha,
        "--llvm",
        "source",
        "--skip-verify",
        "--json",
        env=env,
    )
    assert again.returncode == 0 and json.loads(again.stdout)["up_to_date"] is True, again.stderr[-3000:]
    assert "is not in" not in again.stderr


def test_pytorch_2_3_is_refused_before_anything_is_made(world: World, tmp_path: Path) -> None:
    """PyTorch 2.3.1 pins Triton 2.3.1 (openai/triton release/2.3.x: python/setup.py, and already a
    cmake/llvm-hash.txt): one line, the fix, exit 5, no workspace."""
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    ws = tmp_path / "ws"
    proc = tritondev(
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(world.git_root),
        "--torch-ref",
        "v2.3.1",
        "--llvm",
        "source",
        env=env,
    )
    assert proc.returncode == 5, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Triton 2.3.1 (the Triton PyTorch 2.0 to 2.3 pin) predates" in errors[0]
    assert "fix: use PyTorch 2.4 or newer (--torch-ref v2.4.0)" in proc.stderr and "Traceback" not in proc.stderr
    assert not (ws / "src").exists() and not (ws / "venv").exists() and not (ws / "build").exists()


def test_xpu_is_refused_with_its_reason(world: World, tmp_path: Path) -> None:
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    proc = tritondev(*setup_args(world, tmp_path / "ws", "root-json", "--backend", "xpu"), env=env)
    assert proc.returncode == 2 and "intel/intel-xpu-backend-for-triton" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "ws").exists()
