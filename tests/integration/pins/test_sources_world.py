"""Checkouts of the world's Triton and llvm-project at pinned commits, over git daemon and paths."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings import load_settings
from bootstrap.git.checkouts import ensure_checkout, repository_url
from bootstrap.git.layout import detect_layout
from tests.world.servers import GitDaemon
from tests.world.world import World


def _head(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def _working_tree_reader(repo: Path) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        target = repo / path
        return target.read_text() if target.is_file() else None

    return read


def test_triton_moves_across_eras_over_git_daemon(world: World, git_daemon: GitDaemon, tmp_path: Path) -> None:
    dest = tmp_path / "ws" / "src" / "triton"
    url = git_daemon.url("triton")
    expected = {
        "release-3.1": ("python", "cmake/llvm-hash.txt"),
        "release-3.7": (".", "cmake/llvm-hash.txt"),
        "other-llvm": (".", "cmake/llvm-info.json"),
        "release-3.3": ("python", "cmake/llvm-hash.txt"),
    }
    actions = []
    for label, (setup_dir, pin_file) in expected.items():
        sha = world.triton_commits[label]
        report = ensure_checkout("triton", url, sha, dest, Runner(silent=True))
        actions.append(report.action)
        assert _head(dest) == sha and report.matches_pin
        layout = detect_layout(_working_tree_reader(dest))
        assert (layout.setup_py_dir, layout.llvm_pin_file) == (setup_dir, pin_file), label
        assert layout.llvm_commit == world.triton_llvm_pins[sha]
    assert actions == ["cloned", "fetched", "fetched", "fetched"]


def test_llvm_from_a_mirror_dir(world: World, clean_env: dict[str, str], tmp_path: Path) -> None:
    settings = load_settings({"workspace": str(tmp_path / "ws"), "mirror": str(world.git_root)})
    url = repository_url(settings, "llvm-project", "https://github.com/llvm/llvm-project.git")
    assert url == str(world.git_root / "llvm-project.git")
    dest = tmp_path / "ws" / "src" / "llvm-project"
    report = ensure_checkout("llvm-project", url, world.llvm_commit, dest, Runner(silent=True))
    assert report.action == "cloned" and _head(dest) == world.llvm_commit
    assert (dest / "llvm" / "CMakeLists.txt").is_file()
    # The pinned commit is not the tip of llvm-project main: only it was fetched.
    count = subprocess.run(
        ["git", "-C", str(dest), "rev-list", "--all", "--count"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert count == "1"
    assert ensure_checkout("llvm-project", url, world.llvm_commit, dest, Runner(silent=True)).action == "up-to-date"


def test_file_url(world: World, tmp_path: Path) -> None:
    sha = world.triton_commits["release-3.8"]
    report = ensure_checkout("triton", world.url("triton"), sha, tmp_path / "t", Runner(silent=True))
    assert report.action == "cloned" and _head(tmp_path / "t") == sha
