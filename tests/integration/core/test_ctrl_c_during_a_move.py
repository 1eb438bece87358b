"""A Ctrl-C while a checkout moves: the move ends whole, then the interruption is raised (interrupt.held_until_done).

A terminal's Ctrl-C goes to the whole foreground process group. Before, it reached the `git checkout` of a
move too: git died halfway, HEAD stayed at the old commit with files of the new one, and the restore that
followed found HEAD "already there" and put nothing back (bisect then rebuilt that mixed tree and failed).

A `git` first on PATH stands in for the moment: on `checkout` it sends SIGINT to the mover's process group
(the terminal's Ctrl-C), waits, then runs the real git. A git in that group dies of the signal, as the real
one did halfway; one in a session of its own does the move whole.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO
from tests.support.processes import outlives_a_kill

GIT = shutil.which("git") or "/usr/bin/git"

# On `checkout`: $CTRL_C_TIMES Ctrl-Cs to the mover's group during a pause of $CTRL_C_PAUSE s, then the real git.
WRAPPER = f"""#!/bin/sh
case " $* " in
  *" checkout "*)
    echo $$ > "$WRAPPER_PID"
    sleep "$CTRL_C_PAUSE" &
    echo $! > "$WRAPPER_PID.sleep"
    n=0
    while [ "$n" -lt "$CTRL_C_TIMES" ]; do kill -INT "-$MOVER_GROUP"; n=$((n + 1)); sleep 0.2; done
    wait $! ;;
esac
exec {GIT} "$@"
"""

# Moves the checkout as a running command does: tritondev's handler installed and raising.
MOVER = """
import os, signal, sys, time
from pathlib import Path
from bootstrap.core.interrupt import CtrlC
from bootstrap.core.process.runner import Runner
from bootstrap.git.moves import guarded_move
from bootstrap.core import ui
ctrl_c = CtrlC()
ctrl_c.say = ui.info  # as bootstrap.cli sets it
signal.signal(signal.SIGINT, ctrl_c)
ctrl_c.raising = True
os.environ["MOVER_GROUP"] = str(os.getpgrp())
runner = Runner(log_dir=Path(sys.argv[3]), echo=lambda _line: None)
started = time.monotonic()
try:
    guarded_move("triton", Path(sys.argv[1]), sys.argv[2], runner, "move")
    print("moved", flush=True)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - started:.1f}s", flush=True)
"""


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = tmp_path / "triton"
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run([GIT, "init", "-q", str(repo)], check=True)
    commits = []
    for n in range(2):
        for i in range(20):
            (repo / f"file{i}.txt").write_text(f"commit {n} file {i}\n")
        subprocess.run([GIT, "-C", str(repo), "add", "-A"], check=True, env=env)
        subprocess.run([GIT, "-C", str(repo), "commit", "-q", "-m", f"c{n}"], check=True, env=env)
        commits.append(
            subprocess.run(
                [GIT, "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
            ).stdout.strip()
        )
    subprocess.run([GIT, "-C", str(repo), "checkout", "-q", "--detach", commits[0]], check=True)
    return repo, commits[0], commits[1]


def _move(tmp_path: Path, times: int, pause: float) -> tuple[subprocess.CompletedProcess[str], Path, str, str]:
    repo, start, target = _repo(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(WRAPPER)
    (bin_dir / "git").chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(REPO),
        "WRAPPER_PID": str(tmp_path / "wrapper.pid"),
        "CTRL_C_TIMES": str(times),
        "CTRL_C_PAUSE": str(pause),
    }
    proc = subprocess.run(
        [sys.executable, "-c", MOVER, str(repo), target, str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        start_new_session=True,  # its own group, as a terminal's foreground job has
    )
    return proc, repo, start, target


def _head_and_changes(repo: Path) -> tuple[str, str]:
    head = subprocess.run([GIT, "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    status = subprocess.run([GIT, "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True, check=True)
    return head.stdout.strip(), status.stdout


def test_a_ctrl_c_during_the_checkout_is_raised_after_the_move_ended_whole(tmp_path: Path) -> None:
    proc, repo, _start, target = _move(tmp_path, times=1, pause=1.0)
    assert proc.stdout.startswith("interrupted"), proc.stdout + proc.stderr
    # The checkout got through: HEAD and every file are the target's, nothing between two commits.
    assert _head_and_changes(repo) == (target, "")
    assert all((repo / f"file{i}.txt").read_text() == f"commit 1 file {i}\n" for i in range(20))
    assert "# exit status 0" in (tmp_path / "logs" / "move.log").read_text()
    # The Ctrl-C was answered at once: what it waits for, and how to stop it now.
    (said,) = [line for line in proc.stderr.splitlines() if line.startswith("Ctrl-C:")]
    assert f"checkout --quiet --detach {target}` finish" in said and "Ctrl-C again stops it now" in said


def test_a_second_ctrl_c_stops_the_checkout_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    proc, repo, start, _target = _move(tmp_path, times=2, pause=60)
    assert proc.stdout.startswith("interrupted"), proc.stdout + proc.stderr
    assert time.monotonic() - started < 30  # not the wrapper's 60 s
    # The user insisted: the move was stopped (here before git started), and its processes are gone, the
    # wrapper's own child too (the move's session is killed whole).
    assert _head_and_changes(repo) == (start, "")
    for pid_file in ("wrapper.pid", "wrapper.pid.sleep"):
        assert not outlives_a_kill(int((tmp_path / pid_file).read_text()))
