"""`tritondev setup --llvm PATH`: an LLVM build the user already has, checked for what Triton needs and
for its revision. Real mini LLVM builds: at the pin, at another commit with the same API, and one
without the AMDGPU target."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bootstrap.pipeline.host.buildtree import read_cmake_cache
from tests.integration.build.harness import (
    base_env,
    checkout_state,
    installed_triton,
    setup_json,
    system_cuda_and_json,
    tritondev,
)
from tests.integration.llvm_sources.conftest import fresh_env
from tests.support.venvs import workspace_venv
from tests.world.build import LLVMBuild, build_llvm, clone_at
from tests.world.gitrepo import Git
from tests.world.world import World

pytestmark = pytest.mark.slow


def setup_with(world: World, ws: Path, llvm: str, *extra: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return tritondev(
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(world.git_root),
        "--triton-commit",
        world.triton_commits["root-json"],
        "--jobs",
        "2",
        "--link-jobs",
        "2",
        "--build-type",
        "Release",
        "--llvm",
        llvm,
        *extra,
        env=env,
    )


def tree_state(tree: Path) -> dict[str, tuple[int, int]]:
    """Every file of a tree with its size and mtime: what setup must leave as it found it."""
    state = {}
    for folder, _, files in os.walk(tree):
        for name in files:
            info = os.lstat(os.path.join(folder, name))
            state[os.path.relpath(os.path.join(folder, name), tree)] = (info.st_size, info.st_mtime_ns)
    return state


@pytest.fixture(scope="module")
def moved_llvm(world: World, tmp_path_factory: pytest.TempPathFactory, shared_ccache: Path) -> LLVMBuild:
    """The pinned LLVM plus one commit that changes no API (its revision differs, Triton still compiles)."""
    root = tmp_path_factory.mktemp("moved-llvm")
    source = clone_at(world.url("llvm-project"), root / "llvm-project", world.llvm_commit)
    (source / "README.md").write_text("A commit after the pin that changes no API.\n")
    git = Git(source, [500])
    git("checkout", "-q", "-b", "after-the-pin")
    git.commit("[Docs] A commit after the pin")
    return build_llvm(source, source / "build", env={**fresh_env(root, shared_ccache), "CCACHE_BASEDIR": str(root)})


@pytest.fixture(scope="module")
def matching(
    world: World, mini_llvm: LLVMBuild, shared_ccache: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("llvm-path")
    env = fresh_env(root, shared_ccache)
    before = tree_state(mini_llvm.build)
    workspace_venv(root / "ws")  # made ahead: making it is the setup tests' subject
    proc = setup_with(world, root / "ws", str(mini_llvm.build), "--json", env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {"ws": root / "ws", "env": env, "report": json.loads(proc.stdout), "before": before}


def test_a_tree_at_the_pin_is_built_against_and_left_untouched(
    matching: dict[str, Any], mini_llvm: LLVMBuild, world: World
) -> None:
    ws, report = matching["ws"], matching["report"]
    steps = {s["step"]: s["status"] for s in report["steps"]}
    assert steps["llvm-use"] == "up to date" and "llvm-configure" not in steps and "checkout-llvm-project" not in steps
    assert not (ws / "src" / "llvm-project").exists() and not (ws / "build" / "llvm").exists()
    assert report["verify"]["provenance"]["ok"]
    assert report["verify"]["provenance"]["llvm_revision"] == world.llvm_commit
    cache = read_cmake_cache(next((ws / "src/triton/build").glob("cmake.*/CMakeCache.txt")))
    assert Path(cache["LLVM_SYSPATH"]) == mini_llvm.build
    assert installed_triton(ws / "venv" / "bin" / "python", ws)["llvm_commit"] == world.llvm_commit
    assert tree_state(mini_llvm.build) == matching["before"]  # not one file of the user's tree changed


def test_another_revision_is_exit_5_naming_both_and_changes_nothing(
    world: World, moved_llvm: LLVMBuild, shared_ccache: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    proc = setup_with(world, ws, str(moved_llvm.build), "--json", env=fresh_env(tmp_path, shared_ccache))
    assert proc.returncode == 5, proc.stderr[-3000:]
    error = json.loads(proc.stdout)
    assert moved_llvm.commit in error["message"] and world.llvm_commit in error["message"]
    assert "--allow-llvm-mismatch" in error["fix"]
    assert not (ws / "venv").exists() and not (ws / "src").exists()


def test_an_allowed_mismatch_is_built_with_a_warning(
    world: World, moved_llvm: LLVMBuild, shared_ccache: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    proc = setup_with(world, ws, str(moved_llvm.build), "--allow-llvm-mismatch", env=fresh_env(tmp_path, shared_ccache))
    assert proc.returncode == 0, proc.stderr[-3000:]
    warning = next(line for line in proc.stderr.splitlines() if line.startswith("warning: --llvm"))
    assert moved_llvm.commit in warning and world.llvm_commit in warning and "--allow-llvm-mismatch" in warning
    assert f"built against LLVM {moved_llvm.commit[:12]}" in proc.stdout
    assert installed_triton(ws / "venv" / "bin" / "python", ws)["llvm_commit"] == moved_llvm.commit


def test_what_is_not_an_llvm_build_for_triton_is_exit_2_before_anything_is_created(
    world: World, mini_llvm: LLVMBuild, shared_ccache: Path, tmp_path: Path
) -> None:
    env = fresh_env(tmp_path, shared_ccache)
    no_amdgpu = build_llvm(
        mini_llvm.source,
        tmp_path / "no-amdgpu",
        env={**env, "CCACHE_BASEDIR": str(tmp_path)},
        projects="mlir;llvm",
        targets="host;NVPTX",
    ).build
    cases = {
        str(tmp_path / "nowhere"): "no such folder",
        str(mini_llvm.source): "is an llvm-project source checkout, not a build",
        str(tmp_path): "it lacks MLIR's CMake package",
        str(no_amdgpu): "built without the AMDGPU target(s) Triton links (it has X86;NVPTX)",
        "prebuild": "did you mean 'prebuilt'?",
    }
    for llvm, words in cases.items():
        ws = tmp_path / "ws"
        proc = setup_with(world, ws, llvm, env=env)
        assert proc.returncode == 2, (llvm, proc.stderr[-2000:])
        assert words in proc.stderr and "fix:" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert not ws.exists(), llvm


@pytest.mark.slow
def test_offline_3_7_from_nothing_compiles_its_gsan_runtime(world: World, mini_llvm: LLVMBuild, tmp_path: Path) -> None:
    """3.7 compiles the GSan runtime while it builds, with --cuda-path=third_party/nvidia/backend
    (third_party/nvidia/CMakeLists.txt @ 6d2e38bf), and offline nothing is downloaded into that folder
    (python/build_helpers.py @ 6d2e38bf l.369): the tools and headers go there before the install, in a
    workspace that never built online."""
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    env.update(system_cuda_and_json(tmp_path))  # this machine's CUDA toolkit and nlohmann/json
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    report = setup_json(world, ws, "release-3.7", "--offline", "--llvm", str(mini_llvm.build), env=env)
    assert report["verify"]["provenance"]["ok"] is True
    backend = ws / "src/triton/third_party/nvidia/backend"
    assert (backend / "lib/gsan.ll").read_text().startswith("; ModuleID")  # the mini clang++ of the LLVM tree
    assert (backend / "include/cuda.h").is_file() and (backend / "bin/ptxas").is_file()
    assert any("before and after the install" in n for n in report["notices"])
    assert checkout_state(ws / "src/triton")[1] == ""
