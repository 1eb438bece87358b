"""The one guarded move and the destinations of a clone: never over the user's work, never through a link,
and every interrupted clone of ours recovered (real git, real repositories)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError, DirtyCheckout, ExitCode, WouldLoseData
from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import ensure_checkout
from bootstrap.git.moves import PARTIAL_MARK, guarded_move, refuse_ignored_in_range
from tests.integration.pins.gitrepo import git, make_upstream
from tests.support.snapshot import diff, snapshot


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, list[str], str]:
    return make_upstream(tmp_path / "up")


def full_clone(bare: Path, dest: Path, commit: str) -> Path:
    git(bare.parent, "clone", "-q", str(bare), str(dest))
    git(dest, "checkout", "-q", "--detach", commit)
    return dest


def test_the_guarded_move_refuses_over_ignored_and_untracked_files(
    tmp_path: Path, upstream: tuple[Path, list[str], str]
) -> None:
    bare, shas, _ = upstream
    repo = full_clone(bare, tmp_path / "triton", shas[1])
    (repo / "lib" / "f3.cc").write_text("my own experiment, kept out of git\n")  # shas[3] tracks lib/f3.cc
    with (repo / ".git" / "info" / "exclude").open("a") as fh:
        fh.write("/lib/f3.cc\n")
    before = snapshot(repo)
    with pytest.raises(WouldLoseData, match=r"lib/f3\.cc") as ignored:
        guarded_move("triton", repo, shas[3], Runner(), "bisect-checkout")
    assert ignored.value.exit_code == ExitCode.LOCKED_OR_DIRTY and diff(before, snapshot(repo)) == []
    with pytest.raises(WouldLoseData, match=r"lib/f3\.cc"):  # the whole range, before a bisect moves anything
        refuse_ignored_in_range("triton", repo, repo, [shas[1], shas[2], shas[3]], Runner(), "bisect")
    (repo / "notes.txt").write_text("untracked work\n")
    with pytest.raises(DirtyCheckout, match=r"notes\.txt"):
        guarded_move("triton", repo, shas[2], Runner(), "bisect-checkout")
    assert (repo / "lib" / "f3.cc").read_text() == "my own experiment, kept out of git\n"
    (repo / "notes.txt").unlink()
    guarded_move("triton", repo, shas[2], Runner(), "bisect-checkout")  # nothing in the way: it moves
    assert git(repo, "rev-parse", "HEAD") == shas[2]


@pytest.mark.parametrize("kind", ["link to an empty folder", "dangling link", "link to a file"])
def test_a_destination_that_is_a_link_is_refused_before_anything_is_fetched(
    tmp_path: Path, upstream: tuple[Path, list[str], str], kind: str
) -> None:
    bare, shas, _ = upstream
    src = tmp_path / "ws" / "src"
    src.mkdir(parents=True)
    target = tmp_path / "elsewhere é"
    if kind == "link to an empty folder":
        target.mkdir()
    elif kind == "link to a file":
        target.write_text("mine\n")
    (src / "triton").symlink_to(target)
    before = snapshot(tmp_path)
    runner = Runner()
    with pytest.raises(ConfigError, match="symbolic link") as refused:
        ensure_checkout("triton", str(bare), shas[1], src / "triton", runner)
    assert refused.value.fix is not None and f"rm {src / 'triton'}" in refused.value.fix
    assert diff(before, snapshot(tmp_path)) == [] and not (src / "triton.partial").exists()
    # The fix works: once the link is gone, the clone is made and is complete.
    (src / "triton").unlink()
    report = ensure_checkout("triton", str(bare), shas[1], src / "triton", Runner())
    assert report.action == "cloned" and git(src / "triton", "rev-parse", "HEAD") == shas[1]


def test_a_link_to_an_existing_clone_is_used_as_it_is(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    big_disk = full_clone(bare, tmp_path / "big disk" / "triton", shas[1])
    src = tmp_path / "ws" / "src"
    src.mkdir(parents=True)
    (src / "triton").symlink_to(big_disk)
    report = ensure_checkout("triton", str(bare), shas[2], src / "triton", Runner())
    assert report.action == "fetched" and git(big_disk, "rev-parse", "HEAD") == shas[2]
    assert (src / "triton").is_symlink()


def test_a_clone_cut_short_between_its_rename_and_its_mark_is_finished(
    tmp_path: Path, upstream: tuple[Path, list[str], str]
) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "ws" / "src" / "triton"
    ensure_checkout("triton", str(bare), shas[1], dest, Runner())
    (dest / PARTIAL_MARK).write_text("a clone tritondev setup has not finished\n")  # as a kill there leaves it
    report = ensure_checkout("triton", str(bare), shas[1], dest, Runner())
    assert report.action == "up-to-date" and not (dest / PARTIAL_MARK).exists()


def test_a_partial_folder_that_is_a_link_is_never_deleted(
    tmp_path: Path, upstream: tuple[Path, list[str], str]
) -> None:
    bare, shas, _ = upstream
    src = tmp_path / "ws" / "src"
    src.mkdir(parents=True)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / PARTIAL_MARK).write_text("x")  # even holding the mark: the link is not ours
    (mine / "work.txt").write_text("mine\n")
    os.symlink(mine, src / "triton.partial")
    with pytest.raises(WouldLoseData, match="not a clone tritondev started"):
        ensure_checkout("triton", str(bare), shas[1], src / "triton", Runner())
    assert (mine / "work.txt").read_text() == "mine\n"
