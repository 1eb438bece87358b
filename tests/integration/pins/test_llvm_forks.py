"""An LLVM pin only a fork has (release/3.7.x, #10631): after the repository the Triton commit names answers
"not our ref", the fork is fetched, safely over what the failed attempt left: its own `.partial` clone is
started again, a `.partial` that is not ours stops it (real git, the test world's llvm-project.git and
llvm-project-fork.git)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bootstrap.core.errors import CommandFailed, MismatchError, WouldLoseData
from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import ensure_checkout
from bootstrap.git.forks import Candidate, checkout_from_forks, not_in_repository
from bootstrap.git.moves import PARTIAL_MARK
from tests.world.world import World


def head(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def fork(world: World) -> Candidate:
    return Candidate("triton-lang/llvm-project", world.url("llvm-project-fork"), "Triton pins LLVM backports there")


def test_the_fork_is_fetched_over_the_half_finished_clone_of_the_first_attempt(world: World, tmp_path: Path) -> None:
    dest, runner = tmp_path / "src" / "llvm-project", Runner(silent=True)
    with pytest.raises(CommandFailed) as first:
        ensure_checkout("llvm-project", world.url("llvm-project"), world.llvm_fork_commit, dest, runner)
    assert not_in_repository(first.value)
    partial = dest.with_name("llvm-project.partial")
    assert (partial / PARTIAL_MARK).is_file()  # what the failed attempt left: ours, marked
    said: list[str] = []
    report, used = checkout_from_forks(
        "llvm-project",
        world.llvm_fork_commit,
        dest,
        runner,
        "https://github.com/llvm/llvm-project.git",
        [fork(world)],
        say=said.append,
    )
    assert used.slug == "triton-lang/llvm-project" and report.matches_pin and head(dest) == world.llvm_fork_commit
    assert said == [
        f"LLVM {world.llvm_fork_commit[:12]} is not in https://github.com/llvm/llvm-project.git: fetching"
        f" it from {world.url('llvm-project-fork')} (Triton pins LLVM backports there)"
    ]
    assert not partial.exists() and not (dest / PARTIAL_MARK).exists()


def test_an_existing_checkout_gets_the_forks_commit_by_url(world: World, tmp_path: Path) -> None:
    """A checkout of the earlier pin (from llvm/llvm-project) moves to the fork's commit; its remotes stay."""
    dest, runner = tmp_path / "src" / "llvm-project", Runner(silent=True)
    ensure_checkout("llvm-project", world.url("llvm-project"), world.llvm_commit, dest, runner)
    remotes = subprocess.run(["git", "-C", str(dest), "remote", "-v"], capture_output=True, text=True).stdout
    report, _ = checkout_from_forks(
        "llvm-project",
        world.llvm_fork_commit,
        dest,
        runner,
        world.url("llvm-project"),
        [fork(world)],
        say=lambda line: None,
    )
    assert report.action == "fetched" and head(dest) == world.llvm_fork_commit
    assert subprocess.run(["git", "-C", str(dest), "remote", "-v"], capture_output=True, text=True).stdout == remotes


def test_a_partial_folder_that_is_not_ours_stops_it(world: World, tmp_path: Path) -> None:
    dest = tmp_path / "src" / "llvm-project"
    partial = dest.with_name("llvm-project.partial")
    partial.mkdir(parents=True)
    (partial / "notes.txt").write_text("mine\n")
    with pytest.raises(WouldLoseData, match="is not a clone tritondev started"):
        checkout_from_forks(
            "llvm-project",
            world.llvm_fork_commit,
            dest,
            Runner(silent=True),
            "https://github.com/llvm/llvm-project.git",
            [fork(world)],
            say=lambda line: None,
        )
    assert (partial / "notes.txt").read_text() == "mine\n"
    assert sorted(p.name for p in partial.iterdir()) == ["notes.txt"]


def test_no_repository_with_the_commit_names_every_one_asked(world: World, tmp_path: Path) -> None:
    upstream = Candidate("llvm/llvm-project", world.url("llvm-project"), "upstream LLVM")
    with pytest.raises(MismatchError) as none:
        checkout_from_forks(
            "llvm-project",
            "0" * 40,
            tmp_path / "src" / "llvm-project",
            Runner(silent=True),
            world.url("llvm-project-fork"),
            [upstream],
            say=lambda line: None,
        )
    assert none.value.exit_code == 5
    assert (
        f"LLVM commit {'0' * 40} is in none of {world.url('llvm-project-fork')}, {world.url('llvm-project')}"
        in none.value.message
    )
