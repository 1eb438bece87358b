"""`tritondev bisect` end to end on a world with history to bisect (real git, cmake, ninja, clang, ccache,
pip): one setup, then bisects that each must leave the checkouts and the installed Triton as they were.

The module's workspace is set up once at Triton `main`; every test starts from that state and checks
that it ends there (a bisect that did not restore would break the next test too).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.bisect.steps import wait_for_step
from tests.integration.build.harness import base_env, checkout_state, git, installed_triton, tritondev
from tests.support.cli import tritondev_argv
from tests.support.run_shared import warm_ccache
from tests.support.venvs import workspace_venv
from tests.world.bisect_world import CHECK_ADD, CHECK_KERNEL_NAME, BisectWorld

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

SMOKE = "import triton\nprint(triton.llvm_commit())\n"
INTERRUPTED = (130, -signal.SIGINT)


@pytest.fixture(scope="module")
def ws(bisect_world: BisectWorld, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A workspace set up at Triton main (pinned LLVM), and the test scripts next to it."""
    root = tmp_path_factory.mktemp("bisect-ws")
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
    proc = tritondev("setup", *common, "--llvm", "source", "--triton-commit", bisect_world.triton.good, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name, text in (("check_add.py", CHECK_ADD), ("check_name.py", CHECK_KERNEL_NAME), ("smoke.py", SMOKE)):
        (root / name).write_text(text)
    return {"root": root, "env": env, "ws": workspace, "common": common}


def bisect(ws: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return tritondev("bisect", *args[:1], *ws["common"], *args[1:], env=ws["env"], cwd=ws["root"])


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr[-4000:]
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def where_things_are(ws: dict[str, Any], refs: bool = True) -> dict[str, Any]:
    """The checkouts (HEAD, status, refs) and the installed Triton, as a bisect must leave them (a bisect
    that can be resumed keeps the range under refs/tritondev/: `refs=False` leaves refs out)."""
    workspace = ws["ws"]
    return {
        **{
            name: (
                *checkout_state(workspace / "src" / name),
                git(workspace / "src" / name, "for-each-ref") if refs else "",
            )
            for name in ("triton", "llvm-project")
        },
        "installed": installed_triton(workspace / "venv" / "bin" / "python", ws["root"]),
        "journal": (workspace / "state" / "bisect.json").exists(),
    }


def where_things_are_before(before: dict[str, Any]) -> dict[str, Any]:
    return {k: (v[0], v[1], "") if k in ("triton", "llvm-project") else v for k, v in before.items()}


def assert_setup_is_a_no_op(ws: dict[str, Any], commit: str) -> None:
    """The starting build is installed again exactly as setup left it: setup has nothing to do."""
    report = as_json(tritondev("setup", *ws["common"], "--triton-commit", commit, "--json", env=ws["env"]))
    assert [s["status"] for s in report["steps"]] == ["up to date"] * len(report["steps"]), report["steps"]


def test_bad_inputs_change_nothing(ws: dict[str, Any], bisect_world: BisectWorld) -> None:
    """One line, a fix, the exit code, and the workspace (checkouts, state, logs, builds) as it was."""
    r = bisect_world.triton
    good, bad = ["--good", r.good], ["--bad", r.bad]
    run = ["--", "python", "check_add.py"]
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("triton", *good, *bad), 2, "no command"),
        (("triton", *good, *bad, "--", "no-such-program-here"), 3, "not on PATH"),
        (("triton", *good, *bad, "--", "./missing.sh"), 3, "does not exist"),
        (("triton", *good, "--bad", "no-such-branch", *run), 2, "not a tag, branch or commit"),
        (("triton", *good, "--bad", "0123456789abcdef0123456789abcdef01234567", *run), 2, "not a commit of"),
        (("triton", "--good", r.bad, "--bad", r.good, *run), 2, "not an ancestor"),
        (("triton", "--good", "release/3.8.x", *bad, *run), 2, "not an ancestor"),
        (("triton", "--good", "-x", *bad, *run), 2, "rejected"),
        (("triton", *good, *bad, "--build-type", "Debug", *run), 2, "changed: env (DEBUG"),
        (("llvm", "--good", bisect_world.llvm.bad, "--bad", bisect_world.llvm.good, *run), 2, "not an ancestor"),
        (("resume",), 2, "no bisect to resume"),
    ]
    from tests.support.snapshot import diff, snapshot

    before = snapshot(ws["ws"])
    for args, code, text in cases:
        proc = bisect(ws, *args)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == code, (args, proc.stderr[-2000:])
        assert text in proc.stderr and lines[-1].startswith("fix: ") and "Traceback" not in proc.stderr, args
        assert diff(before, snapshot(ws["ws"])) == [], args
    # Without --mirror, missing commits come from the checkout's origin: still nothing written.
    no_mirror = tritondev(
        "bisect",
        "triton",
        "--workspace",
        str(ws["ws"]),
        *good,
        "--bad",
        "no-such-branch",
        *run,
        env=ws["env"],
        cwd=ws["root"],
    )
    assert no_mirror.returncode == 2 and str(bisect_world.world.git_root) in no_mirror.stderr
    assert diff(before, snapshot(ws["ws"])) == []
    as_one = bisect(ws, "triton", "--good", r.bad, "--bad", r.good, "--json", *run)
    assert as_one.returncode == 2 and json.loads(as_one.stdout)["exit_code"] == 2
    # A checkout with local work, a locked workspace, no setup at all: nothing happens either.
    (ws["ws"] / "src" / "triton" / "notes.txt").write_text("mine\n")
    before = snapshot(ws["ws"])
    dirty = bisect(ws, "triton", *good, *bad, *run)
    assert dirty.returncode == 6 and "notes.txt" in dirty.stderr and diff(before, snapshot(ws["ws"])) == []
    (ws["ws"] / "src" / "triton" / "notes.txt").unlink()
    import fcntl

    with (ws["ws"] / "state" / "lock").open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        locked = bisect(ws, "triton", *good, *bad, *run)
    assert locked.returncode == 6 and "locked" in locked.stderr
    elsewhere = ws["root"] / "no-workspace-here"
    none = tritondev("bisect", "triton", "--workspace", str(elsewhere), *good, *bad, *run, env=ws["env"])
    assert none.returncode == 2 and "tritondev setup" in none.stderr and not elsewhere.exists()
    nothing = bisect(ws, "reset")
    assert nothing.returncode == 0 and "nothing to reset" in nothing.stdout


def test_regression_found_broken_commit_skipped_no_llvm_build_interrupt_and_resume(
    ws: dict[str, Any], bisect_world: BisectWorld
) -> None:
    r = bisect_world.triton
    before = where_things_are(ws)
    argv = ["--good", r.good, "--bad", "bisect"]
    command = ["--", "python", "check_add.py"]
    # Ctrl-C (to the whole process group, as a terminal sends it) during the second step.
    since = time.time()
    proc = start(ws, "triton", *argv, *command)
    wait_for_step(proc, ws["ws"], "02-*", since)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode in INTERRUPTED, stderr[-3000:]
    assert "interrupted" in stderr and "fix: run the same command again" in stderr
    journal = json.loads((ws["ws"] / "state" / "bisect.json").read_text())
    assert journal["restored"] is True and len(journal["steps"]) == 1
    assert where_things_are(ws, refs=False) == {**where_things_are_before(before), "journal": True}

    # The same command goes on where it stopped: the step already judged is not tested again.
    data = as_json(bisect(ws, "triton", *argv, "--json", *command))
    steps = data["steps"]
    assert data["first_bad"]["commit"] == r.labels["regression"]
    assert data["first_bad"]["subject"] == r.subjects[r.labels["regression"]]
    assert data["first_bad"]["llvm_commit"] == data["first_bad"]["parent_llvm_commit"] == bisect_world.world.llvm_commit
    assert steps[0]["commit"] == journal["steps"][0]["commit"] and len({s["commit"] for s in steps}) == len(steps)
    assert len(steps) <= 5
    broken = [s for s in steps if s["commit"] == r.labels["broken"]]
    assert broken and broken[0]["verdict"] == "skip" and "does not build" in broken[0]["reason"]
    assert "computeRankOfTensorType" in broken[0]["reason"]  # the compiler's error, in one line
    assert {s["verdict"] for s in steps} == {"good", "bad", "skip"}
    assert data["llvm_builds"] == 0 and not any(s["llvm_rebuilt"] for s in steps)
    for step in steps:
        assert Path(step["log"]).is_dir()
        assert (Path(step["log"]) / "command.log").is_file() == (step["verdict"] != "skip")
    assert where_things_are(ws) == before
    assert_setup_is_a_no_op(ws, r.good)


def start(ws: dict[str, Any], *args: str) -> subprocess.Popen[str]:
    """`tritondev bisect ARGS` in a session of its own (a signal to its group reaches pip and ninja too)."""
    return subprocess.Popen(
        tritondev_argv("bisect", *args[:1], *ws["common"], *args[1:]),
        env=ws["env"],
        cwd=ws["root"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_a_range_across_an_llvm_bump_builds_each_llvm_once_and_a_killed_bisect_is_reset(
    ws: dict[str, Any], bisect_world: BisectWorld
) -> None:
    r, world = bisect_world.bump, bisect_world.world
    before = where_things_are(ws)
    argv = ("triton", "--good", r.good, "--bad", r.bad)
    # kill -9 while the first step builds the bumped LLVM: the checkouts stay moved, the record says so.
    since = time.time()
    proc = start(ws, *argv, "--", "python", "check_add.py")
    wait_for_step(proc, ws["ws"], "01-*/llvm-build.log", since)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=600)
    assert json.loads((ws["ws"] / "state" / "bisect.json").read_text())["restored"] is False
    assert git(ws["ws"] / "src" / "triton", "rev-parse", "HEAD") != r.good
    # Another bisect is refused while this one is recorded; reset puts everything back.
    other = bisect(ws, "triton", "--good", r.good, "--bad", r.commits[2], "--", "python", "check_add.py")
    assert other.returncode == 6 and "bisect reset" in other.stderr
    reset = bisect(ws, "reset", "--json")
    assert reset.returncode == 0, reset.stderr[-3000:]
    assert json.loads(reset.stdout)["restored_now"] is True
    assert where_things_are(ws) == before

    data = as_json(bisect(ws, *argv, "--json", "--", "python", "check_add.py"))
    steps = data["steps"]
    assert data["first_bad"]["commit"] == r.labels["regression"]
    assert data["llvm_builds"] == 1
    bumped = [s for s in steps if s["llvm_commit"] == world.llvm_commits["other"]]
    assert len(bumped) >= 2, steps  # the other LLVM is built on its first step and reused after
    assert [s["llvm_rebuilt"] for s in bumped] == [True] + [False] * (len(bumped) - 1)
    assert not any(s["llvm_rebuilt"] for s in steps if s not in bumped)
    assert len(list((ws["ws"] / "build" / "llvm").iterdir())) == 2  # one build per LLVM commit
    assert where_things_are(ws) == before


def test_bisect_llvm_finds_the_llvm_commit_that_breaks_a_triton_test(
    ws: dict[str, Any], bisect_world: BisectWorld
) -> None:
    r, world = bisect_world.llvm, bisect_world.world
    before = where_things_are(ws)
    behaviour = r.labels["behaviour"]
    after_it = r.commits[r.commits.index(behaviour) + 1]
    proc = bisect(ws, "llvm", "--good", r.good, "--bad", after_it, "--", "python", "check_name.py")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert f"first bad commit: {behaviour} {r.subjects[behaviour]}" in proc.stdout
    assert where_things_are(ws) == before
    assert before["installed"]["llvm_commit"] == world.llvm_commit
    assert_setup_is_a_no_op(ws, bisect_world.triton.good)

    # `bisect llvm` never moves the Triton checkout: local work there is built as it stands and kept.
    notes = ws["ws"] / "src" / "triton" / "my-notes.txt"
    notes.write_text("work in progress\n")
    before = where_things_are(ws)

    # Compatibility: the first LLVM that this Triton no longer builds against, in the same LLVM folder.
    api_break = r.labels["api_break"]
    before_it = r.commits[r.commits.index(api_break) - 1]
    data = as_json(
        bisect(
            ws,
            "llvm",
            "--good",
            before_it,
            "--bad",
            r.bad,
            "--build-failure",
            "bad",
            "--json",
            "--",
            "python",
            "smoke.py",
        )
    )
    assert data["first_bad"]["commit"] == api_break
    failed = next(s for s in data["steps"] if s["commit"] == api_break)
    assert failed["verdict"] == "bad" and failed["exit_code"] is None
    assert "Triton does not build against it" in failed["reason"] and "Ops.cpp" in failed["reason"]
    folders = list((ws["ws"] / "build" / "llvm-bisect").iterdir())
    assert len(folders) == 1  # one LLVM folder for every commit, configured once
    assert not any((Path(s["log"]) / "llvm-configure.log").exists() for s in data["steps"])
    assert where_things_are(ws) == before and notes.read_text() == "work in progress\n"
    notes.unlink()


# What the built library says in each step, on the step's command.log, before the step's check runs.
REPORT = """\
import json, triton
print("LLVM-REPORT " + json.dumps({"header": triton.llvm_commit(), "linked": triton.llvm_linked()}))
"""


def reports(steps: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """commit -> what its step's library reported (steps that built and ran the command)."""
    found = {}
    for step in steps:
        log = Path(step["log"]) / "command.log"
        if log.is_file():
            line = next(x for x in log.read_text().splitlines() if x.startswith("LLVM-REPORT "))
            found[step["commit"]] = {**json.loads(line.removeprefix("LLVM-REPORT ")), "step": step}
    return found


def test_each_step_across_an_llvm_bump_is_built_against_its_own_pin(
    ws: dict[str, Any], bisect_world: BisectWorld
) -> None:
    """`bisect triton` across a bump: every step's library reports the LLVM that step's commit pins, in
    the headers it was compiled with and the libraries it was linked with (one Triton build folder)."""
    r, world = bisect_world.bump, bisect_world.world
    (ws["root"] / "report_then_add.py").write_text(REPORT + CHECK_ADD)
    before = where_things_are(ws)
    data = as_json(
        bisect(ws, "triton", "--good", r.good, "--bad", r.bad, "--json", "--", "python", "report_then_add.py")
    )
    assert data["first_bad"]["commit"] == r.labels["regression"]
    seen = reports(data["steps"])
    assert any(s["step"]["llvm_commit"] == world.llvm_commits["other"] for s in seen.values()), data["steps"]
    for commit, said in seen.items():
        pinned = said["step"]["llvm_commit"]
        assert said["header"] == said["linked"]["revision"] == pinned, (commit, said)
    assert where_things_are(ws) == before
    # Back at the starting LLVM, the starting build's own folder came back: the restore compiled only what
    # the commits changed, not every file from a fresh CMake cache as the first step past the bump did.
    logs = ws["ws"] / "logs" / "bisect"
    crossed = next(s for s in data["steps"] if s["llvm_commit"] == world.llvm_commits["other"])
    compiled = {
        name: (logs / name / "triton-install.log").read_text().count("Building CXX object")
        for name in ("restore", Path(crossed["log"]).name)
    }
    assert compiled["restore"] < compiled[Path(crossed["log"]).name], compiled
    assert not list((ws["ws"] / "src" / "triton" / "build").glob(".tritondev-bisect-*"))  # parked ones gone


def test_bisect_llvm_builds_each_of_three_commits_into_the_library(
    ws: dict[str, Any], bisect_world: BisectWorld
) -> None:
    """`bisect llvm` over three LLVM commits: each step's library is that commit's LLVM, and the
    starting build (set up against setup's own LLVM folder) is back afterwards."""
    r = bisect_world.llvm
    (ws["root"] / "report_then_name.py").write_text(REPORT + CHECK_KERNEL_NAME)
    before = where_things_are(ws)
    good, bad = r.good, r.commits[3]  # three commits after the good one, the behaviour change among them
    data = as_json(bisect(ws, "llvm", "--good", good, "--bad", bad, "--json", "--", "python", "report_then_name.py"))
    assert data["first_bad"]["commit"] == r.labels["behaviour"]
    seen = reports(data["steps"])
    assert len(seen) >= 2, data["steps"]
    folder = next((ws["ws"] / "build" / "llvm-bisect").iterdir())
    for commit, said in seen.items():
        assert said["header"] == said["linked"]["revision"] == commit, (commit, said)
        assert Path(said["linked"]["build_tree"]).resolve() == folder.resolve()
    assert where_things_are(ws) == before
    after = fresh_library(ws)
    assert after["linked"]["revision"] == bisect_world.world.llvm_commit
    assert Path(after["linked"]["build_tree"]).resolve() != folder.resolve()


def fresh_library(ws: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [str(ws["ws"] / "venv" / "bin" / "python"), "-c", REPORT],
        capture_output=True,
        text=True,
        cwd=ws["root"],
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout.removeprefix("LLVM-REPORT "))
    return result
