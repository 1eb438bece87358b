"""pytest fixtures for the test world (loaded from tests/conftest.py through pytest_plugins).

`world` and `mini_llvm` are made once per run, whichever pytest-xdist worker asks first, and shared
by every worker (tests/support/run_shared.py): tests must treat them as read-only.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.run_shared import made_once, run_folder
from tests.world.build import LLVMBuild, build_llvm, clone_at
from tests.world.downloads import use_downloads
from tests.world.servers import GitDaemon, GitHttpServer, RawServer, start_git_daemon
from tests.world.world import World, build_world


@pytest.fixture(scope="session", autouse=True)
def run_folder_of_this_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder all workers of this run share (made known to helpers that have no fixtures at hand)."""
    return run_folder(tmp_path_factory)


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """The world, built once per run. Read-only: tests that change repositories use `fresh_world`."""
    made = made_once(tmp_path_factory, "world", lambda folder: build_world(folder / "w"))
    use_downloads(made.downloads_url)  # this worker's builds read the shared world's downloads
    return made


@pytest.fixture
def fresh_world(tmp_path: Path) -> World:
    """A private world (about a second to build) that a test may change."""
    return build_world(tmp_path / "world")


@pytest.fixture(scope="session")
def git_daemon(world: World) -> Iterator[GitDaemon]:
    """A real `git daemon` on 127.0.0.1 serving the world's bare repos: git_daemon.url("triton")."""
    daemon = start_git_daemon(world.git_root)
    yield daemon
    daemon.stop()


@pytest.fixture(scope="session")
def git_http_server(world: World) -> Iterator[GitHttpServer]:
    """Smart-HTTP git hosting on 127.0.0.1 (git http-backend): git_http_server.url("triton")."""
    server = GitHttpServer(world.git_root).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def raw_http_server(world: World) -> Iterator[RawServer]:
    """raw.githubusercontent.com on 127.0.0.1: raw_http_server.url(ref, path[, repo])."""
    server = RawServer(world).start()
    yield server
    server.stop()


BUILD_TOOLS = ("cmake", "ninja", "clang", "clang++", "ld.lld", "ccache")


@pytest.fixture(scope="session")
def mini_llvm(world: World, tmp_path_factory: pytest.TempPathFactory) -> LLVMBuild:
    """The mini LLVM at the pinned commit, built once per run (clang, lld, ccache; ~10 s).

    `mini_llvm.build` is a build tree to use as LLVM_SYSPATH; read-only for tests. Where the build
    tools are missing (a lent GPU machine with only a CUDA toolkit; ./shell/test installs them) the
    tests that need it skip and say which tool is missing.
    """
    missing = [tool for tool in BUILD_TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the mini LLVM needs {', '.join(missing)} (./shell/test installs them)")

    def make(root: Path) -> LLVMBuild:
        source = clone_at(world.url("llvm-project"), root / "llvm-project", world.llvm_commit)
        return build_llvm(source, source / "build")

    return made_once(tmp_path_factory, "mini-llvm", make)
