"""The check for local changes (bootstrap.git.local_changes) on real git: it names exactly what
`git status --untracked-files=all` names, whatever the user's status mode and the untracked cache's
state; it writes nothing; after `prime` it reads no folder whose stat data is unchanged; and it runs
no core.fsmonitor hook, whoever's config sets one."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from bootstrap.core.process.runner import Runner
from bootstrap.git import local_changes
from bootstrap.git.checkouts import ensure_checkout
from tests.integration.pins.gitrepo import git, make_upstream
from tests.support.snapshot import diff, snapshot

ODD_NAMES = (
    "with space.txt",
    "ünïcode-ß.txt",
    "star*.txt",
    "q?mark.txt",
    "[bracket].txt",
    "-dash.txt",
    ":(literal)magic.txt",
    "new\nline.txt",
    "tab\tname.txt",
)


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone of a small upstream at its second commit; the user's git config (~/.gitconfig: the runner
    drops inherited GIT_* variables) is a file of the test's."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".gitconfig").write_text("")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    bare, shas, _ = make_upstream(tmp_path / "up")
    dest = tmp_path / "checkout"
    ensure_checkout("triton", str(bare), shas[1], dest, Runner(silent=True))
    return dest


def all_untracked(dest: Path) -> set[str]:
    """What git itself names, file by file (the reference)."""
    out = subprocess.run(
        [
            "git",
            "-C",
            str(dest),
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignore-submodules=none",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(local_changes.parse_porcelain_z(out))


def make_local_work(dest: Path) -> None:
    (dest / "setup.py").write_text("print('mine')\n")
    (dest / "lib" / "staged.cc").write_text("int staged;\n")
    git(dest, "add", "lib/staged.cc")
    git(dest, "mv", "lib/a.cc", "lib/renamed.cc")
    (dest / "notes.txt").write_text("notes\n")
    deep = dest / "new" / "deeper" / "deepest"
    deep.mkdir(parents=True)
    (deep / "work.cc").write_text("int w;\n")
    (dest / "new" / "top.txt").write_text("t\n")
    odd = dest / "odd dir é"
    odd.mkdir()
    for name in ODD_NAMES:
        (odd / name).write_text(name)
    (dest / "build").mkdir()
    (dest / "build" / "ignored.o").write_text("ignored\n")  # .gitignore: build/
    (dest / "only-ignored").mkdir()
    (dest / "only-ignored" / "x.so").write_text("ignored\n")  # .gitignore: *.so


def trace_opendirs(dest: Path, tmp_path: Path) -> int:
    """How many folders the check's own git status opens (git's trace2 counter)."""
    config = local_changes.read_config(dest, Runner(silent=True), "t")
    trace = tmp_path / "trace2"
    trace.unlink(missing_ok=True)
    argv = local_changes._status_argv(dest, config, write=False)
    subprocess.run(argv, env={**os.environ, "GIT_TRACE2_PERF": str(trace)}, capture_output=True, check=True)
    counts = [int(line.rsplit("opendir:", 1)[1]) for line in trace.read_text().splitlines() if "opendir:" in line]
    return sum(counts) if counts else -1  # -1: no untracked cache was used at all


@pytest.mark.parametrize("mode", ["", "normal", "all", "no"])
@pytest.mark.parametrize("primed", [False, True], ids=["no-cache", "primed"])
def test_names_every_file_git_status_all_names(checkout: Path, tmp_path: Path, mode: str, primed: bool) -> None:
    if mode:
        git(checkout, "config", "status.showUntrackedFiles", mode)
    if primed:
        local_changes.prime(checkout, Runner(silent=True), "t")
    make_local_work(checkout)
    found = local_changes.local_changes(checkout, Runner(silent=True), "t")
    assert set(found) == all_untracked(checkout)
    assert {
        "setup.py",
        "lib/staged.cc",
        "lib/renamed.cc",
        "lib/a.cc",
        "notes.txt",
        "new/top.txt",
        "new/deeper/deepest/work.cc",
        *(f"odd dir é/{n}" for n in ODD_NAMES),
    } == set(found)
    assert not any(name.endswith("/") for name in found)  # a folder is never named instead of its files


def test_the_check_writes_nothing_even_with_a_stale_cache(checkout: Path) -> None:
    local_changes.prime(checkout, Runner(silent=True), "t")
    make_local_work(checkout)  # folders changed since the cache was written
    os.utime(checkout / "lib" / "f1.cc", (1, 1))  # stat data the index no longer matches
    before = snapshot(checkout)  # every file of the tree and of .git, byte for byte
    assert local_changes.local_changes(checkout, Runner(silent=True), "t")
    assert diff(before, snapshot(checkout)) == []


def test_after_prime_the_check_opens_no_folder_and_sees_new_ones(checkout: Path, tmp_path: Path) -> None:
    assert trace_opendirs(checkout, tmp_path) != 0  # no cache yet: every folder is read
    # A folder changed in the same second as the index is "racy" for git and read every time: the
    # clone is a second older than the cache, as in setup (clone, build, then prime).
    time.sleep(1.1)
    local_changes.prime(checkout, Runner(silent=True), "t")
    assert trace_opendirs(checkout, tmp_path) == 0
    # The user's own `git status` (their default mode) keeps the same cache usable.
    git(checkout, "status", "--porcelain")
    assert trace_opendirs(checkout, tmp_path) == 0
    (checkout / "lib" / "later.cc").write_text("int later;\n")  # lib/ changed: read again, and found
    assert trace_opendirs(checkout, tmp_path) == 1
    assert local_changes.local_changes(checkout, Runner(silent=True), "t") == ("lib/later.cc",)


HOOK = "#!/bin/sh\ntouch '{marker}'\nexit 1\n"  # exit 1: git treats every file as possibly changed


def test_an_fsmonitor_hook_never_runs(checkout: Path, tmp_path: Path) -> None:
    """Neither the checkout's own core.fsmonitor nor one of the user's global config: looking at a checkout
    starts no program (the runner's one git hardening)."""
    marker = tmp_path / "hook-ran"
    hook = tmp_path / "fsmonitor-hook"
    hook.write_text(HOOK.format(marker=marker))
    hook.chmod(0o755)
    (checkout / "notes.txt").write_text("notes\n")
    git(checkout, "config", "core.fsmonitor", str(hook))  # the checkout's own config
    assert local_changes.local_changes(checkout, Runner(silent=True), "t") == ("notes.txt",)
    assert not marker.exists()
    git(checkout, "config", "--unset", "core.fsmonitor")
    (tmp_path / "home" / ".gitconfig").write_text(f"[core]\n\tfsmonitor = {hook}\n")  # the user's
    assert local_changes.local_changes(checkout, Runner(silent=True), "t") == ("notes.txt",)
    assert not marker.exists()


def test_more_untracked_folders_than_named_are_listed_by_one_walk(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_changes, "MAX_FOLDERS_BY_NAME", 2)
    for i in range(5):
        (checkout / f"dir{i}" / "sub").mkdir(parents=True)
        (checkout / f"dir{i}" / "sub" / "f.txt").write_text("f\n")
    found = local_changes.local_changes(checkout, Runner(silent=True), "t")
    assert set(found) == all_untracked(checkout) == {f"dir{i}/sub/f.txt" for i in range(5)}
