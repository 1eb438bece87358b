"""`tritondev bisect` from where users start: a workspace set up at the bad commit (the current build is
broken), whose checkout is setup's shallow clone of that one commit. `bisect triton --good OLD --bad
CURRENT` fetches the history it needs, `bisect resume` too; a command holding a credential is never
written anywhere; ignored files of the user's where a commit of the range has a file stop the bisect
before anything moves. Real git, cmake, ninja, clang and pip on the bisect world.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.bisect.steps import wait_for_step
from tests.integration.build.harness import base_env, git, tritondev
from tests.support.cli import tritondev_argv
from tests.support.run_shared import warm_ccache
from tests.support.snapshot import diff, snapshot
from tests.support.venvs import workspace_venv
from tests.world.bisect_world import CHECK_ADD, BisectWorld

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

SECRET = "Qz9-b1sect-t0ken"
# The command carries a URL with a token (as a test that downloads from a private index would): it must
# reach the command, and no file, log or output of tritondev's.
URL_ARG = f"https://{SECRET}:x-oauth-basic@example.invalid/simple"


def _add_branch_that_tracks_a_file_for_a_while(world: BisectWorld) -> tuple[str, str]:
    """Branch `bisect-notes` from main: docs/NOTES.md added, then removed; (good, bad)."""
    work = world.world.work["triton"]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "W",
        "GIT_AUTHOR_EMAIL": "w@example.invalid",
        "GIT_COMMITTER_NAME": "W",
        "GIT_COMMITTER_EMAIL": "w@example.invalid",
        "GIT_AUTHOR_DATE": "@1769990000 +0000",
        "GIT_COMMITTER_DATE": "@1769990000 +0000",
    }

    def g(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=work, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    good = g("rev-parse", "main")
    g("checkout", "-q", "-b", "bisect-notes", "main")
    (work / "docs").mkdir(exist_ok=True)
    (work / "docs" / "NOTES.md").write_text("release notes\n")
    g("add", "-A")
    g("commit", "-q", "-m", "Add release notes")
    g("rm", "-q", "docs/NOTES.md")
    g("commit", "-q", "-m", "Move the release notes to the wiki")
    bad = g("rev-parse", "HEAD")
    g("checkout", "-q", "main")
    subprocess.run(
        ["git", "-C", str(work), "push", "-q", str(world.world.bare["triton"]), "refs/heads/bisect-notes"],
        check=True,
        capture_output=True,
    )
    return good, bad


@pytest.fixture(scope="module")
def ws(bisect_world: BisectWorld, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A workspace set up at the bad end of the `bisect` range, whose src/triton is a depth-1 clone of
    it, as an earlier tritondev made them (setup now makes a blobless clone with the whole history,
    which bisect needs no import for)."""
    notes = _add_branch_that_tracks_a_file_for_a_while(bisect_world)
    root = tmp_path_factory.mktemp("bisect-from-bad")
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=warm_ccache())
    workspace = root / "ws"
    workspace_venv(workspace)
    common = [
        "--workspace",
        str(workspace),
        "--mirror",
        str(bisect_world.world.git_root),
        "--jobs",
        "2",
        "--link-jobs",
        "2",
    ]
    proc = tritondev("setup", *common, "--triton-commit", bisect_world.triton.bad, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    triton, bad = workspace / "src" / "triton", bisect_world.triton.bad
    assert git(triton, "rev-parse", "--is-shallow-repository") == "false"
    # The checkout as an earlier tritondev made it: the pinned commit alone at depth 1, detached,
    # remembered under refs/tritondev/pins/.
    origin = git(triton, "remote", "get-url", "origin")
    shutil.rmtree(triton)
    triton.mkdir()
    for args in (
        ("init", "-q"),
        ("remote", "add", "origin", origin),
        ("fetch", "-q", "--depth", "1", "origin", bad),
        ("checkout", "-q", "--detach", bad),
        ("update-ref", f"refs/tritondev/pins/{bad}", bad),
    ):
        git(triton, *args)
    assert git(triton, "rev-parse", "--is-shallow-repository") == "true"
    assert git(triton, "rev-list", "--count", "HEAD") == "1"
    (root / "check_add.py").write_text(CHECK_ADD)
    return {"root": root, "env": env, "ws": workspace, "common": common, "notes": notes}


def bisect(ws: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return tritondev("bisect", *args[:1], *ws["common"], *args[1:], env=ws["env"], cwd=ws["root"])


def secret_anywhere(ws: dict[str, Any]) -> list[str]:
    found = []
    for path in Path(ws["ws"]).rglob("*"):
        if path.is_file() and not path.is_symlink() and "/src/" not in str(path) and "/build/" not in str(path):
            if SECRET in path.read_text(errors="replace"):
                found.append(str(path))
    return found


def test_bisect_from_a_shallow_checkout_of_the_bad_commit(ws: dict[str, Any], bisect_world: BisectWorld) -> None:
    r = bisect_world.triton
    head = git(ws["ws"] / "src" / "triton", "rev-parse", "HEAD")
    assert head == r.bad
    # Ctrl-C during the second step: the checkout goes back to the bad commit, the journal stays.
    since = time.time()
    proc = subprocess.Popen(
        tritondev_argv(
            "bisect", "triton", *ws["common"], "--good", r.good, "--bad", r.bad, "--", "python", "check_add.py", URL_ARG
        ),
        env=ws["env"],
        cwd=ws["root"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_for_step(proc, ws["ws"], "02-*", since)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode in (130, -signal.SIGINT), stderr[-3000:]
    assert git(ws["ws"] / "src" / "triton", "rev-parse", "HEAD") == r.bad
    assert SECRET not in stderr and secret_anywhere(ws) == []
    # setup's --llvm auto line is said once for the whole bisect, not at every step and the restore.
    assert stderr.count("llvm: auto -> ") == 1, stderr[-3000:]

    # The journal keeps the command masked: a plain resume cannot run it and says how to go on.
    plain = bisect(ws, "resume")
    assert plain.returncode == 2 and "holds a credential" in plain.stderr and "fix: " in plain.stderr
    # The same command again goes on where it stopped, fetching what the shallow checkout lacks.
    done = bisect(ws, "triton", "--good", r.good, "--bad", r.bad, "--json", "--", "python", "check_add.py", URL_ARG)
    assert done.returncode == 0, done.stderr[-4000:]
    data = json.loads(done.stdout)
    assert data["first_bad"]["commit"] == r.labels["regression"]
    assert git(ws["ws"] / "src" / "triton", "rev-parse", "HEAD") == r.bad
    assert SECRET not in done.stdout + done.stderr and secret_anywhere(ws) == []
    result = json.loads((ws["ws"] / "logs" / "bisect" / "result.json").read_text())
    assert result["command"][-1] == "https://***:***@example.invalid/simple"


def test_bisect_resume_fetches_what_a_shallow_checkout_lacks(ws: dict[str, Any], bisect_world: BisectWorld) -> None:
    """A Ctrl-C while the range is copied into the checkout, before any step, leaves a bisect to resume;
    so does one as step 01 starts; and a journal whose range the checkout lacks (as an older run left
    it) is resumed by fetching the range again."""
    r = bisect_world.triton
    checkout = ws["ws"] / "src" / "triton"
    argv = tritondev_argv(
        "bisect", "triton", *ws["common"], "--good", r.good, "--bad", r.bad, "--", "python", "check_add.py"
    )
    # tritondev's git runs no hook of the checkout (core.hooksPath=/dev/null), so a `git` first on PATH
    # holds the fetch that copies the range in until the Ctrl-C, whatever the machine's load.
    held = ws["root"] / "import-held"
    wrapper = ws["root"] / "held-git" / "git"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(
        f"#!/bin/sh\ncase \"$*\" in *fetch*refs/tritondev/bisect/good:*) touch '{held}';"
        f" exec sleep 600;; esac\nexec '{shutil.which('git')}' \"$@\"\n"
    )
    wrapper.chmod(0o755)
    env = {**ws["env"], "PATH": f"{wrapper.parent}{os.pathsep}{ws['env'].get('PATH', os.environ['PATH'])}"}
    proc = subprocess.Popen(
        argv, env=env, cwd=ws["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 600
    while not held.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-3000:]
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode in (130, -signal.SIGINT), stderr[-3000:]
    journal = json.loads((ws["ws"] / "state" / "bisect.json").read_text())
    assert journal["steps"] == [] and journal["restored"] is True
    assert git(checkout, "rev-parse", "HEAD") == r.bad

    # The same command again goes on (the range copied in now), and a Ctrl-C as step 01 starts.
    since = time.time()
    proc = subprocess.Popen(
        argv,
        env=ws["env"],
        cwd=ws["root"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_for_step(proc, ws["ws"], "01-*", since)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode in (130, -signal.SIGINT), stderr[-3000:]
    assert (ws["ws"] / "state" / "bisect.json").is_file()
    # Make the checkout shallow at the bad commit again, as setup left it: the range's objects are gone.
    subprocess.run(["git", "-C", str(checkout), "fetch", "-q", "--depth", "1", str(checkout), r.bad], check=True)
    for ref in ("refs/tritondev/bisect/good", "refs/tritondev/bisect/bad"):
        subprocess.run(["git", "-C", str(checkout), "update-ref", "-d", ref], check=True)
    subprocess.run(["git", "-C", str(checkout), "reflog", "expire", "--expire=now", "--all"], check=True)
    subprocess.run(["git", "-C", str(checkout), "gc", "-q", "--prune=now"], check=True)
    middle = r.commits[len(r.commits) // 2]
    assert subprocess.run(["git", "-C", str(checkout), "cat-file", "-e", middle], capture_output=True).returncode != 0
    resumed = bisect(ws, "resume", "--json")
    assert resumed.returncode == 0, resumed.stderr[-4000:]
    assert json.loads(resumed.stdout)["first_bad"]["commit"] == r.labels["regression"]
    assert git(checkout, "rev-parse", "HEAD") == r.bad


def test_ignored_files_a_commit_of_the_range_tracks_stop_it_before_anything_moves(ws: dict[str, Any]) -> None:
    good, bad = ws["notes"]
    checkout = ws["ws"] / "src" / "triton"
    (checkout / "docs").mkdir(exist_ok=True)
    (checkout / "docs" / "NOTES.md").write_text("my own notes, kept out of git\n")
    with (checkout / ".git" / "info" / "exclude").open("a") as fh:
        fh.write("/docs/NOTES.md\n")
    before = snapshot(ws["ws"])
    proc = bisect(ws, "triton", "--good", good, "--bad", bad, "--", "python", "check_add.py")
    assert proc.returncode == 6, proc.stderr[-3000:]
    assert "docs/NOTES.md" in proc.stderr and "fix: " in proc.stderr and "Traceback" not in proc.stderr
    assert diff(before, snapshot(ws["ws"])) == []
    assert (checkout / "docs" / "NOTES.md").read_text() == "my own notes, kept out of git\n"
