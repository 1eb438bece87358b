"""The commit a checkout's HEAD names, read from git's own files as git writes them."""

from __future__ import annotations

from pathlib import Path

from bootstrap.git.head import head_commit

A = "a" * 40
B = "b" * 40


def _repo(root: Path, head: str) -> Path:
    (root / ".git" / "refs" / "heads").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text(head)
    return root


def test_a_detached_head_names_its_commit(tmp_path: Path) -> None:
    assert head_commit(_repo(tmp_path, A + "\n")) == A


def test_a_branch_is_read_from_its_ref_file_then_packed_refs(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "ref: refs/heads/main\n")
    assert head_commit(repo) is None  # an unborn branch
    (repo / ".git" / "packed-refs").write_text(f"# pack-refs with: peeled fully-peeled sorted\n{B} refs/heads/main\n")
    assert head_commit(repo) == B
    (repo / ".git" / "refs" / "heads" / "main").write_text(A + "\n")
    assert head_commit(repo) == A  # a loose ref wins over the packed one, as in git


def test_a_worktree_follows_its_git_file_and_common_dir(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main", A + "\n")
    (main / ".git" / "refs" / "heads" / "topic").write_text(B + "\n")
    wt_git = main / ".git" / "worktrees" / "wt"
    wt_git.mkdir(parents=True)
    (wt_git / "HEAD").write_text("ref: refs/heads/topic\n")
    (wt_git / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert head_commit(wt) == B


def test_what_is_not_a_commit_is_none(tmp_path: Path) -> None:
    assert head_commit(tmp_path) is None  # no .git
    assert head_commit(_repo(tmp_path / "x", "garbage\n")) is None
    assert head_commit(_repo(tmp_path / "y", "ref: refs/../../etc/passwd\n")) is None
    (tmp_path / "z" / ".git").mkdir(parents=True)
    (tmp_path / "z" / ".git" / "HEAD").mkdir()  # a folder where HEAD should be
    assert head_commit(tmp_path / "z") is None
