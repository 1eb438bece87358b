"""Your own clone (--triton-src): what is read of it, the one-line summary, and the settings rule that
a clone and a Triton commit are one choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import ConfigError
from bootstrap.core.settings.settings import load_settings
from bootstrap.git.adopt import Clone, looks_like_triton, parse_left_right, working_tree_reader

HEAD = "a" * 40


def clone(**changes: object) -> Clone:
    base = Clone(Path("/src/triton"), HEAD, "my-feature", "origin/main", (2, 1), ("origin", "fork"), ())
    return Clone(**{**base.__dict__, **changes})


def test_the_summary_says_branch_upstream_and_what_is_uncommitted() -> None:
    assert clone().describe() == "branch my-feature (2 ahead, 1 behind origin/main), nothing uncommitted"
    many = clone(changes=tuple(f"lib/f{i}.cpp" for i in range(7)))
    assert many.describe().endswith(
        "7 uncommitted file(s): lib/f0.cpp, lib/f1.cpp, lib/f2.cpp, lib/f3.cpp, lib/f4.cpp and 2 more"
    )
    assert clone(branch=None, upstream=None, ahead_behind=None).describe().startswith("detached HEAD aaaaaaaaaaaa")


def test_the_summary_names_what_git_is_in_the_middle_of() -> None:
    merging = clone(
        operation="a merge of bbbbbbbbbbbb in progress (git merge --continue or --abort)",
        conflicts=("lib/a.cpp",),
        changes=("lib/a.cpp", "notes.txt"),
    )
    assert merging.describe() == (
        "branch my-feature (2 ahead, 1 behind origin/main), a merge of bbbbbbbbbbbb in"
        " progress (git merge --continue or --abort), 1 file(s) with conflicts: lib/a.cpp,"
        " 1 other uncommitted file(s): notes.txt"
    )
    bisecting = clone(
        branch=None, upstream=None, ahead_behind=None, operation="a `git bisect` in progress (git bisect reset ends it)"
    )
    assert bisecting.describe() == (
        "detached HEAD aaaaaaaaaaaa, a `git bisect` in progress (git bisect reset ends it), nothing uncommitted"
    )


def test_each_operation_is_read_from_the_files_git_keeps(tmp_path: Path) -> None:
    from bootstrap.git.local_changes import describe_operation, unmerged_z

    assert describe_operation(tmp_path) is None
    (tmp_path / "rebase-merge").mkdir()
    (tmp_path / "rebase-merge" / "head-name").write_text("refs/heads/my-feature\n")
    (tmp_path / "rebase-merge" / "onto").write_text("c" * 40 + "\n")
    assert describe_operation(tmp_path) == (
        "a rebase of my-feature onto cccccccccccc in progress (git rebase --continue, --skip or --abort)"
    )
    (tmp_path / "rebase-merge" / "head-name").write_text("detached HEAD\n")
    assert describe_operation(tmp_path).startswith("a rebase onto cccccccccccc in progress")  # type: ignore[union-attr]
    (tmp_path / "rebase-merge" / "head-name").unlink()
    (tmp_path / "rebase-merge").rename(tmp_path / "rebase-apply")
    (tmp_path / "rebase-apply" / "applying").touch()
    assert describe_operation(tmp_path) == "a `git am` in progress (git am --continue, --skip or --abort)"
    (tmp_path / "rebase-apply" / "applying").unlink()
    (tmp_path / "rebase-apply" / "onto").unlink()
    (tmp_path / "rebase-apply").rmdir()
    for name, what in (("REVERT_HEAD", "a revert"), ("CHERRY_PICK_HEAD", "a cherry-pick"), ("MERGE_HEAD", "a merge")):
        (tmp_path / name).write_text("d" * 40 + "\n")
        assert describe_operation(tmp_path).startswith(f"{what} of dddddddddddd in progress")  # type: ignore[union-attr]
    for name in ("REVERT_HEAD", "CHERRY_PICK_HEAD", "MERGE_HEAD"):
        (tmp_path / name).unlink()
    (tmp_path / "BISECT_LOG").write_text("git bisect start\n")
    assert describe_operation(tmp_path) == "a `git bisect` in progress (git bisect reset ends it)"
    status = "UU lib/a.cpp\0 M b.py\0AA both.txt\0?? new\0"
    assert unmerged_z(status) == ("lib/a.cpp", "both.txt")


@given(st.text(max_size=40))
def test_left_right_counts_are_two_numbers_or_nothing(text: str) -> None:
    parsed = parse_left_right(text)
    assert parsed is None or (len(parsed) == 2 and min(parsed) >= 0)


def test_left_right_counts() -> None:
    assert parse_left_right("3\t0\n") == (3, 0)
    assert parse_left_right("") is None and parse_left_right("1 2 3") is None


def test_a_triton_checkout_is_recognised_by_its_files(tmp_path: Path) -> None:
    assert not looks_like_triton(tmp_path)
    (tmp_path / "setup.py").write_text("")
    assert not looks_like_triton(tmp_path)  # a setup.py alone is any Python project
    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "llvm-hash.txt").write_text("b" * 40 + "\n")
    assert looks_like_triton(tmp_path)


def test_the_working_tree_reader_reads_regular_files_inside_only(tmp_path: Path) -> None:
    import os

    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "llvm-hash.txt").write_text("pin\n")
    os.mkfifo(tmp_path / "fifo")
    read = working_tree_reader(tmp_path / "cmake" / "..")
    assert read("cmake/llvm-hash.txt") == "pin\n"
    assert read("fifo") is None and read("missing") is None and read("../etc/passwd") is None


@pytest.mark.parametrize("other", ["TRITONDEV_TRITON_COMMIT", "TRITONDEV_TORCH_REF"])
def test_a_clone_and_a_commit_at_the_same_level_are_refused(other: str, tmp_path: Path) -> None:
    value = "c" * 40 if other.endswith("COMMIT") else "v2.5.0"
    env = {"TRITONDEV_WORKSPACE": str(tmp_path), "TRITONDEV_TRITON_SRC": str(tmp_path / "t"), other: value}
    with pytest.raises(ConfigError, match="--triton-src builds your clone at its own HEAD"):
        load_settings({}, env)


def test_the_higher_level_wins_between_a_clone_and_a_commit(tmp_path: Path) -> None:
    env = {"TRITONDEV_WORKSPACE": str(tmp_path), "TRITONDEV_TRITON_SRC": str(tmp_path / "t")}
    given_commit = load_settings({"triton_commit": "c" * 40}, env)
    assert given_commit.triton_src is None and given_commit.triton_commit == "c" * 40
    env = {"TRITONDEV_WORKSPACE": str(tmp_path), "TRITONDEV_TRITON_COMMIT": "c" * 40}
    given_clone = load_settings({"triton_src": str(tmp_path / "t")}, env)
    assert given_clone.triton_src == tmp_path / "t" and given_clone.triton_commit is None
