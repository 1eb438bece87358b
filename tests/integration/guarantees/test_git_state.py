"""What tritondev says about a clone git is in the middle of something in, or will not look at.

- A merge with conflicts, a stopped rebase, a `git bisect` session: named as such (with how to end it),
  never "1 uncommitted file" or a bare "detached HEAD"; and a checkout tritondev would move in the
  middle of one is left alone (exit 6), since moving it would break the user's session.
- A clone another user owns: git refuses it (its safe.directory check); tritondev says what git said
  and the exact `git config --global --add safe.directory` line, never "not a git checkout".
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError, DirtyCheckout
from bootstrap.core.process.runner import Runner
from bootstrap.git.moves import guarded_move
from tests.conftest import Cli
from tests.world.world import World

ME = ("-c", "user.name=Me", "-c", "user.email=me@example.invalid")


def git(repo: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *ME, *args], capture_output=True, text=True, check=check
    ).stdout.strip()


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
    proc = cli(
        "setup",
        "--workspace",
        str(tmp_path / "ws"),
        "--triton-src",
        str(clone),
        "--mirror",
        str(world.git_root),
        "--llvm",
        "source",
        "--dry-run",
        "--json",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = {s["step"]: s for s in json.loads(proc.stdout)["steps"]}
    return str(steps["checkout-triton"]["reason"])


def test_a_merge_a_rebase_and_a_bisect_are_named(cli: Cli, world: World, tmp_path: Path) -> None:
    clone = diverged(world, tmp_path / "my-triton")
    git(clone, "merge", "theirs", check=False)
    said = summary(cli, clone, world, tmp_path)
    assert "branch mine (1 ahead, 0 behind origin/main), a merge of " in said, said
    assert "in progress (git merge --continue or --abort)" in said, said
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


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("chown") is None, reason="needs root to give a clone away")
def test_a_clone_of_another_user_says_what_git_said_and_how_to_allow_it(cli: Cli, world: World, tmp_path: Path) -> None:
    clone = tmp_path / "their triton"
    subprocess.run(["git", "clone", "-q", str(world.bare["triton"]), str(clone)], check=True)
    subprocess.run(["chown", "-R", "65534:65534", str(clone)], check=True)  # nobody's
    env = {k: v for k, v in os.environ.items() if k != "SUDO_UID"}  # root by sudo is trusted for its user's
    proc = cli(
        "setup",
        "--workspace",
        str(tmp_path / "ws"),
        "--triton-src",
        str(clone),
        "--mirror",
        str(world.git_root),
        "--llvm",
        "source",
        "--dry-run",
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "not a git checkout" not in proc.stderr and "Traceback" not in proc.stderr
    assert f"git refuses to work in {clone}: it belongs to another user" in proc.stderr, proc.stderr
    assert f"detected dubious ownership in repository at '{clone}'" in proc.stderr
    fix = f"git config --global --add safe.directory {shlex.quote(str(clone))}"
    assert f"fix: if you trust that repository: {fix}" in proc.stderr, proc.stderr
    with pytest.raises(ConfigError):  # any git command there, through the runner: the same refusal
        Runner(silent=True).capture(["git", "-C", str(clone), "status"], step="t", check=False)
    home = tmp_path / "home"
    subprocess.run(
        ["git", "config", "--file", str(home / ".gitconfig"), "--add", "safe.directory", str(clone)], check=True
    )
    allowed = cli(
        "setup",
        "--workspace",
        str(tmp_path / "ws"),
        "--triton-src",
        str(clone),
        "--mirror",
        str(world.git_root),
        "--llvm",
        "source",
        "--dry-run",
        env={**env, "HOME": str(home)},
        timeout=300,
    )
    assert allowed.returncode == 0, allowed.stderr[-3000:]  # the line given works
