"""No git command tritondev runs starts a program of a repository's or of the user's git config: no hook
(the clone's own `.git/hooks`, a global `core.hooksPath`), no fsmonitor, no filter driver (clean, smudge;
defined in the clone's config or the global one, named by `.git/info/attributes` or the global
attributes file). Every one of them writes a marker file here; after each command there is none.

The clone is hostile on purpose: first plain git is shown to run every one of those programs (so the
markers prove something), then tritondev's reads (setup --dry-run's `git status`, doctor), and the
bisect's writes in your clone (`git worktree add`, moves of the worktree to other commits, its removal)
run, through the real CLI and through the git layer's own functions."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.process.runner import Runner
from bootstrap.git.adopt import inspect_clone
from bootstrap.git.local_changes import local_changes
from bootstrap.git.moves import guarded_move
from bootstrap.git.worktrees import add_worktree, remove_worktree
from tests.conftest import Cli
from tests.world.world import World

HOOKS = (
    "post-checkout",
    "post-index-change",
    "reference-transaction",
    "post-merge",
    "pre-auto-gc",
    "post-rewrite",
    "pre-commit",
    "post-commit",
    "fsmonitor-watchman",
)
MARK = '#!/bin/sh\necho "$0 $*" >> "{markers}/{name}"\n'
FILTER = 'sh -c \'echo "$0" >> "{markers}/{name}"; cat\' {name}'


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def hostile_clone(world: World, root: Path, home: Path) -> tuple[Path, Path]:
    """A clone of the world's Triton whose own config and the user's global config run programs from git."""
    markers = root / "markers"
    markers.mkdir()
    clone = root / "my-triton"
    subprocess.run(["git", "clone", "-q", str(world.bare["triton"]), str(clone)], check=True)
    for hooks, who in ((clone / ".git" / "hooks", "clone"), (root / "global-hooks", "global")):
        hooks.mkdir(exist_ok=True)
        for name in HOOKS:
            (hooks / name).write_text(MARK.format(markers=markers, name=f"{who}-hook-{name}"))
            (hooks / name).chmod(0o755)
    fsmonitor = root / "fsmonitor"
    fsmonitor.write_text(MARK.format(markers=markers, name="fsmonitor") + "exit 1\n")
    fsmonitor.chmod(0o755)
    git(clone, "config", "core.fsmonitor", str(fsmonitor))
    git(clone, "config", "filter.evil.clean", FILTER.format(markers=markers, name="clone-clean"))
    git(clone, "config", "filter.evil.smudge", FILTER.format(markers=markers, name="clone-smudge"))
    git(clone, "config", "filter.evil.required", "true")
    (clone / ".git" / "info" / "attributes").write_text("*.py filter=evil\n")
    attributes = root / "global-attributes"
    attributes.write_text("*.md filter=gevil\n*.txt filter=gevil\n*.json filter=gevil\n")
    for key, value in (
        ("core.hooksPath", str(root / "global-hooks")),
        ("core.attributesFile", str(attributes)),
        ("filter.gevil.clean", FILTER.format(markers=markers, name="global-clean")),
        ("filter.gevil.smudge", FILTER.format(markers=markers, name="global-smudge")),
    ):
        subprocess.run(["git", "config", "--file", str(home / ".gitconfig"), key, value], check=True)
    return clone, markers


def ran(markers: Path) -> list[str]:
    found = sorted(p.name for p in markers.iterdir())
    for p in markers.iterdir():
        p.unlink()
    return found


@pytest.fixture
def hostile(world: World, tmp_path: Path, clean_env: dict[str, str]) -> tuple[Path, Path]:
    return hostile_clone(world, tmp_path, Path(clean_env["HOME"]))


def test_plain_git_runs_them_all(hostile: tuple[Path, Path], world: World) -> None:
    """The hostile clone does what it says to git as the user runs it: without this, no marker below proves
    anything."""
    clone, markers = hostile
    (clone / "README.md").write_text("edited\n")
    init = next(clone.rglob("__init__.py"))
    init.write_text(init.read_text() + "# edited\n")
    git(clone, "status", "--porcelain")
    git(clone, "diff", "--stat")  # reads README.md through its (global) clean filter
    git(clone, "worktree", "add", "--detach", str(clone.parent / "wt"), world.triton_commits["root-json"])
    found = ran(markers)
    for name in ("clone-clean", "global-clean", "fsmonitor"):
        assert name in found, found
    assert any(name.startswith("global-hook-") for name in found), found  # global hooksPath wins over .git/hooks
    git(
        clone,
        "-c",
        f"core.hooksPath={clone / '.git' / 'hooks'}",
        "worktree",
        "add",
        "--detach",
        str(clone.parent / "wt2"),
        world.triton_commits["root-json"],
    )
    found = ran(markers)
    assert {"clone-hook-post-checkout", "clone-hook-reference-transaction"} <= set(found), found


def test_setup_dry_run_and_doctor_run_nothing_of_the_clones(
    hostile: tuple[Path, Path], cli: Cli, world: World, tmp_path: Path
) -> None:
    clone, markers = hostile
    (clone / "README.md").write_text("edited\n")  # what makes `git status` run the clean filters
    init = next(clone.rglob("__init__.py"))
    init.write_text(init.read_text() + "# edited\n")
    ws = tmp_path / "ws"
    dry = cli(
        "setup",
        "--workspace",
        str(ws),
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
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "2 uncommitted file(s)" in dry.stdout, dry.stdout[-2000:]
    assert ran(markers) == []
    doctor = cli("doctor", "--workspace", str(ws), "--json", env={"TRITONDEV_TRITON_SRC": str(clone)}, timeout=300)
    assert doctor.returncode in (0, 1), doctor.stderr[-3000:]
    assert ran(markers) == []


def test_the_bisects_worktree_and_its_moves_run_nothing_of_the_clones(
    hostile: tuple[Path, Path], world: World, tmp_path: Path
) -> None:
    """What `bisect triton` does in your clone, through the same functions: a worktree added at one commit,
    moved to others (the one guarded move), looked at, removed."""
    clone, markers = hostile
    runner = Runner(silent=True)
    worktree = tmp_path / "ws" / "src" / "triton-bisect"
    worktree.parent.mkdir(parents=True)
    first, second = world.triton_commits["root-json"], world.triton_commits["main"]
    add_worktree(runner, clone, worktree, first, "bisect-worktree")
    assert git(worktree, "rev-parse", "HEAD") == first
    guarded_move("triton", worktree, second, runner, "bisect-step")
    assert git(worktree, "rev-parse", "HEAD") == second
    guarded_move("triton", worktree, first, runner, "bisect-step", branch="tritondev/pin", create_branch=True)
    assert local_changes(worktree, runner, "t") == ()
    assert inspect_clone(clone, runner).head == git(clone, "rev-parse", "HEAD")
    remove_worktree(runner, clone, worktree, "bisect-worktree")
    assert not worktree.exists()
    assert ran(markers) == []
    # The files came out as they are in the commit: no smudge filter rewrote them.
    assert not any(p.name.endswith("-smudge") for p in markers.iterdir())


def test_a_caller_cannot_turn_the_hardening_off(hostile: tuple[Path, Path]) -> None:
    """A command's own config variables (a URL rewrite for credentials) come first; the hardening last,
    so a hooksPath or filter given there is overridden too."""
    clone, markers = hostile
    (clone / "README.md").write_text("edited again\n")
    env = {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": str(clone / ".git" / "hooks"),
        "GIT_CONFIG_KEY_1": "core.fsmonitor",
        "GIT_CONFIG_VALUE_1": str(clone.parent / "fsmonitor"),
    }
    Runner(silent=True).run(
        ["git", "-C", str(clone), "-c", "advice.detachedHead=false", "checkout", "-q", "-b", "x"], step="t", env=env
    )
    Runner(silent=True).capture(["git", "-C", str(clone), "status", "--porcelain"], step="t", env=env)
    assert ran(markers) == []
    assert os.environ.get("GIT_CONFIG_COUNT") is None


def test_a_users_own_git_command_under_run_keeps_its_hooks(
    hostile: tuple[Path, Path], cli: Cli, tmp_path: Path
) -> None:
    """`tritondev run -- git ...` is the user's own command: their hooks and filters are theirs, so it runs as
    plain git would. Only the git commands tritondev runs itself are hardened."""
    clone, markers = hostile
    (clone / "README.md").write_text("edited by the user\n")
    result = cli(
        "run", "--workspace", str(tmp_path / "ws"), "--", "git", "-C", str(clone), "status", "--porcelain", timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = ran(markers)
    assert "global-clean" in found or "fsmonitor" in found, found
