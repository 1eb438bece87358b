"""What tritondev says about a clone git is in the middle of something in.

- A merge with conflicts, a stopped rebase, a `git bisect` session: named as such (with how to end it),
  never "1 uncommitted file" or a bare "detached HEAD"; and a checkout tritondev would move in the
  middle of one is left alone (exit 6), since moving it would break the user's session.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.errors import DirtyCheckout
from bootstrap.core.runner import Runner
from bootstrap.git.moves import guarded_move
from tests.conftest import Cli
from tests.world.world import World

ME = ("-c", "user.name=Me", "-c", "user.email=me@example.invalid")


def git(repo: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", "-C", str(repo), *ME, *args], capture_output=True, text=True,
                          check=check).stdout.strip()


def diverged(world: World, where: Path) -> Path:
    """A clone with two branches that change the same line of README.md differently."""
    clone = where
    subprocess.run(["git", "clone", "-q", str(world.bare["triton"]), str(clone)], check=True)
    git(clone, "checkout", "-q", "-b", "theirs")
    (clone / "README.md").write_text("theirs\n")
    git(clone, "commit", "-qam", "theirs")
    git(clone, "checkout", "-q", "-b", "mine", "HEAD~1")
    (clone / "README.md").write_text("mine\n")
    git(clone, "commit", "-qam", "mine")
    return clone


def summary(cli: Cli, clone: Path, world: World, tmp_path: Path) -> str:
    proc = cli("setup", "--workspace", str(tmp_path / "ws"), "--triton-src", str(clone), "--mirror",
               str(world.git_root), "--llvm", "source", "--dry-run", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = {s["step"]: s for s in json.loads(proc.stdout)["steps"]}
    return str(steps["checkout-triton"]["reason"])


def test_a_merge_a_rebase_and_a_bisect_are_named(cli: Cli, world: World, tmp_path: Path) -> None:
    clone = diverged(world, tmp_path / "my-triton")
    git(clone, "merge", "theirs", check=False)
    said = summary(cli, clone, world, tmp_path)
    assert "branch mine, a merge of " in said and "in progress (git merge --continue or --abort)" in said, said
    assert "1 file(s) with conflicts: README.md" in said and "1 uncommitted file" not in said, said
    git(clone, "merge", "--abort")
    git(clone, "rebase", "theirs", check=False)  # stops at the conflict, HEAD detached
    said = summary(cli, clone, world, tmp_path)
    assert said.startswith("your clone as it stands: detached HEAD ") and "a rebase of mine onto " in said, said
    assert "in progress (git rebase --continue, --skip or --abort)" in said, said
    git(clone, "rebase", "--abort")
    git(clone, "bisect", "start", "mine", "mine~2")
    said = summary(cli, clone, world, tmp_path)
    assert said.startswith("your clone as it stands: detached HEAD ")
    assert "a `git bisect` in progress (git bisect reset ends it)" in said, said


def test_a_checkout_in_the_middle_of_a_rebase_is_never_moved(world: World, tmp_path: Path) -> None:
    checkout = diverged(world, tmp_path / "src" / "triton")
    git(checkout, "rebase", "theirs", check=False)
    (checkout / "README.md").write_text("resolved\n")
    git(checkout, "add", "README.md")  # resolved, not yet continued: the rebase still holds the branch
    head = git(checkout, "rev-parse", "HEAD")
    with pytest.raises(DirtyCheckout) as refused:
        guarded_move("triton", checkout, world.triton_commits["main"], Runner(silent=True), "t")
    assert "has a rebase of mine onto " in refused.value.message and "README.md" in refused.value.message
    assert refused.value.fix and "finish or abort it" in refused.value.fix
    assert git(checkout, "rev-parse", "HEAD") == head and (checkout / ".git" / "rebase-merge").is_dir()
