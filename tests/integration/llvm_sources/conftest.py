"""A private test world with prebuilt LLVM packages of the mini LLVM, and a server for them.

The packages are made from the session's mini LLVM (`mini_llvm`, built at the world's pinned LLVM
commit, the same commit in every world), installed and tarred as Triton's are; Triton commits whose
cmake/llvm-info.json carries their real sha256 and build number are made in a private world.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bootstrap.git.setup_py import SetupPyArgs
from bootstrap.pipeline.llvm.source import detect_host, host_suffix
from tests.integration.build.harness import base_env, tritondev
from tests.support.run_shared import made_once, warm_ccache
from tests.world.build import LLVMBuild
from tests.world.downloads import use_downloads
from tests.world.packages import BuiltPackage, PackageServer, commit_llvm_info, package_llvm
from tests.world.world import World, build_world

GOOD, WRONG_SUM, MISSING, RETIRED = 1, 2, 3, 4  # build numbers of the pins made below


@dataclass(frozen=True)
class PrebuiltWorld:
    world: World
    suffix: str
    packages: Path  # what the server serves
    package: BuiltPackage  # build GOOD, served, its sum pinned
    pins: dict[int, str]  # build number -> Triton commit pinning llvm-<hash8>-<suffix>-<n>

    def name(self, build_number: int) -> str:
        return f"llvm-{self.world.llvm_commit[:8]}-{self.suffix}-{build_number}"


def llvm_info(world: World, build_number: int, suffix: str, sha256: str) -> dict[str, object]:
    """cmake/llvm-info.json as Triton writes it: every platform's sum, ours the real one."""
    sums = {
        s: f"{i:x}" * 64
        for i, s in enumerate(
            ("almalinux-arm64", "almalinux-x64", "macos-arm64", "macos-x64", "ubuntu-arm64", "ubuntu-x64"), start=1
        )
    }
    return {"llvm_hash": world.llvm_commit, "build_number": build_number, "sha256sum": {**sums, suffix: sha256}}


@pytest.fixture(scope="package")
def prebuilt_world(tmp_path_factory: pytest.TempPathFactory, mini_llvm: LLVMBuild) -> PrebuiltWorld:
    """Made once per run and shared by every worker (tests only read it): tests/support/run_shared.py."""
    world = made_once(tmp_path_factory, "prebuilt-world", lambda root: _prebuilt_world(root, mini_llvm))
    use_downloads(world.world.downloads_url)
    return world


def _prebuilt_world(root: Path, mini_llvm: LLVMBuild) -> PrebuiltWorld:
    world = build_world(root / "w")
    assert world.llvm_commit == mini_llvm.commit  # commits are the same in every world
    suffix, _ = host_suffix(detect_host(), SetupPyArgs(), {})
    assert suffix is not None, "this machine has no prebuilt LLVM suffix"
    packages = root / "packages"
    name = f"llvm-{world.llvm_commit[:8]}-{suffix}-{GOOD}"
    package = package_llvm(mini_llvm.build, packages, name)
    # A package whose bytes are not the pinned ones: served under its name, another sum pinned.
    wrong = package_llvm(mini_llvm.build, packages, f"llvm-{world.llvm_commit[:8]}-{suffix}-{WRONG_SUM}")
    pins = {
        GOOD: commit_llvm_info(world, "root-json", llvm_info(world, GOOD, suffix, package.sha256), "good"),
        WRONG_SUM: commit_llvm_info(world, "root-json", llvm_info(world, WRONG_SUM, suffix, "0" * 64), "wrong"),
        MISSING: commit_llvm_info(world, "root-json", llvm_info(world, MISSING, suffix, "1" * 64), "missing"),
        RETIRED: commit_llvm_info(world, "root-json", llvm_info(world, RETIRED, suffix, "2" * 64), "retired"),
    }
    assert wrong.sha256 != "0" * 64
    return PrebuiltWorld(world, suffix, packages, package, pins)


@pytest.fixture(scope="package")
def package_server(prebuilt_world: PrebuiltWorld) -> Iterator[PackageServer]:
    server = PackageServer(prebuilt_world.packages).start()
    yield server
    server.stop()


def setup_prebuilt(
    pw: PrebuiltWorld, server: PackageServer, ws: Path, build_number: int, *extra: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`tritondev setup --llvm prebuilt` of the Triton commit pinning package `build_number`."""
    return tritondev(
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(pw.world.git_root),
        "--triton-commit",
        pw.pins[build_number],
        "--jobs",
        "2",
        "--link-jobs",
        "2",
        "--build-type",
        "Release",
        "--llvm",
        "prebuilt",
        "--llvm-prebuilt-url",
        server.base_url,
        *extra,
        env=env,
    )


def fresh_env(root: Path, shared_ccache: Path) -> dict[str, str]:
    """A private HOME and registry (XDG_CACHE_HOME), one ccache for all (the Triton builds hit it)."""
    return base_env(root / "home", xdg=root / "xdg", ccache_dir=shared_ccache)


@pytest.fixture(scope="package")
def shared_ccache() -> Path:
    """The run's warm ccache: these tests are about which LLVM is linked, not about what ccache counts."""
    return warm_ccache()
