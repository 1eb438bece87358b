"""`setup --ccache-remote` end to end on the test world with a real redis-server on 127.0.0.1.

Workspace A builds cold and fills the remote; workspace B (same pins, its own empty local cache, its
own folder) builds almost entirely from it. C builds against a server stopped beforehand, D against
one shut down in the middle of its LLVM build: both still finish and verify, with a warning, and
the doctor reports the remote unreachable. The password of the URL appears nowhere.

Every workspace has its own CCACHE_DIR (so the counters of that folder are exactly its own builds)
and its own XDG cache (so B cannot borrow A's LLVM build through the build registry).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from bootstrap.pipeline.ccache.stats import delta, parse_print_stats
from tests.integration.build.harness import base_env, installed_triton, setup_args, tritondev
from tests.integration.ccache_remote.redis import PASSWORD, RedisServer
from tests.support.cli import tritondev_argv
from tests.support.venvs import workspace_venv
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
LABEL = "root-json"
STEPS = ("llvm-build", "triton-install")


def _env(area: Path, name: str, **extra: str) -> dict[str, str]:
    env = base_env(area / f"home-{name}", xdg=area / f"xdg-{name}", ccache_dir=area / f"ccache-{name}")
    env.update(extra)
    return env


def _counters(env: dict[str, str]) -> dict[str, int]:
    if not Path(env["CCACHE_DIR"]).exists():
        return {}
    out = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True, check=True).stdout
    return parse_print_stats(out)


def _report(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, f"setup failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _verified(report: dict[str, Any], ws: Path, world: World) -> None:
    assert report["verify"]["provenance"]["ok"] is True
    assert [s["status"] for s in report["steps"] if s["step"] in STEPS] == ["ran", "ran"]
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert facts["version"].endswith(f"+git{world.triton_commits[LABEL][:8]}")
    assert facts["llvm_commit"] == world.llvm_commit


def _summary_figures(report: dict[str, Any]) -> tuple[int, int, int, int]:
    """The build summary's figures, summed over the build steps: (local hits, remote hits, misses,
    remote errors), as CcacheDelta.figures gives them."""
    entries = list(report["ccache"].values())
    assert entries, "the report has no ccache summary"
    return (
        sum(e["local_hits"] for e in entries),
        sum(e["remote_hits"] for e in entries),
        sum(e["misses"] for e in entries),
        sum(e["remote_errors"] for e in entries),
    )


OUTPUTS: list[str] = []  # everything any command printed in this module, for the password test


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = tritondev(*args, env=env)
    OUTPUTS.extend([proc.stdout, proc.stderr])
    return proc


@pytest.fixture(scope="module")
def area(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("team")


@pytest.fixture(scope="module")
def team(world: World, area: Path, password_redis: RedisServer) -> dict[str, Any]:
    """A cold, then B from the remote; the server wants a password and the URL is the usual Redis
    form with an empty user, redis://:PASSWORD@HOST:PORT (which ccache, given as it is, would send
    no AUTH for)."""
    url = password_redis.url
    assert url.startswith("redis://:")
    out: dict[str, Any] = {"url": url}
    for name in ("A", "B"):
        env = _env(area, name)
        ws = area / f"ws-{name}"
        workspace_venv(ws)
        proc = _run(*setup_args(world, ws, LABEL, "--ccache-remote", url, "--json"), env=env)
        out[name] = {"ws": ws, "env": env, "report": _report(proc), "stats": _counters(env), "stderr": proc.stderr}
        if name == "A":
            out["keys_after_a"] = password_redis.keys()
    return out


def test_a_builds_cold_and_fills_the_remote(team: dict[str, Any], world: World) -> None:
    a = team["A"]
    _verified(a["report"], a["ws"], world)
    counts = delta({}, a["stats"])
    assert counts.calls > 20 and counts.misses == counts.calls  # nothing anywhere yet
    assert counts.remote_errors == 0 and a["stats"].get("remote_storage_write", 0) >= counts.misses
    assert team["keys_after_a"] >= counts.misses  # every compilation stored its result remotely
    assert _summary_figures(a["report"]) == counts.figures()


def test_a_plain_setup_remembers_how_the_workspace_was_set_up(team: dict[str, Any], world: World) -> None:
    """A's setup was given --mirror, --triton-commit and --llvm; a plain `setup` there uses them again (no
    network: the mirror is local), and the password of the remote was not written down."""
    a = team["A"]
    ws, commit = a["ws"], world.triton_commits[LABEL]
    saved = json.loads((ws / "state" / "settings.json").read_text())["settings"]
    assert saved == {"mirror": str(world.git_root), "triton_commit": commit, "llvm": "source"}
    report = _report(_run("setup", "--workspace", str(ws), "--dry-run", "--json", env=a["env"]))
    assert report["pins"]["triton_commit"] == commit
    assert report["pins"]["triton_commit_source"].startswith("workspace:")
    shown = _run("config", "show", "--workspace", str(ws), env=a["env"]).stdout
    assert f"mirror = {world.git_root}  (workspace:{ws / 'state' / 'settings.json'}" in shown


def test_b_builds_from_the_remote(team: dict[str, Any], world: World) -> None:
    b = team["B"]
    _verified(b["report"], b["ws"], world)
    counts = delta({}, b["stats"])  # B's own, empty-at-start local cache: these are B's builds
    assert counts.local_hits == 0 and counts.remote_errors == 0
    assert counts.remote_rate >= 0.9, counts
    # The build summary says the same, per step and in text.
    assert _summary_figures(b["report"]) == counts.figures()


def test_stopped_before_the_build(world: World, area: Path, stopped_redis: RedisServer) -> None:
    """In text mode: the summary and the warning as a user sees them."""
    env = _env(area, "C")
    ws = area / "ws-C"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    proc = _run(*setup_args(world, ws, LABEL, "--ccache-remote", stopped_redis.url), env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "verified: triton" in proc.stdout
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert facts["version"].endswith(f"+git{world.triton_commits[LABEL][:8]}")
    counts = delta({}, _counters(env))
    assert counts.remote_errors > 0 and counts.remote_hits == 0 and counts.misses == counts.calls
    assert "ccache remote storage failed" in proc.stderr  # the warning
    assert "0 local, 0 remote hits" in proc.stdout and "remote errors/timeouts" in proc.stdout  # the summary
    _doctor_says_unreachable(stopped_redis.url, env)


def _doctor_says_unreachable(url: str, env: dict[str, str]) -> None:
    denv = {**env, "TRITONDEV_CCACHE_REMOTE": url}
    proc = _run("doctor", "--check", "toolchain.ccache-remote", "--json", env=denv)
    data = json.loads(proc.stdout)
    (check,) = data["checks"]
    assert check["status"] == "warn" and "unreachable" in check["summary"], check
    assert proc.returncode == 0  # a warning: builds still work without the remote
    strict = _run("doctor", "--check", "toolchain.ccache-remote", "--strict", env=denv)
    assert strict.returncode == 1 and "unreachable" in strict.stderr + strict.stdout


def test_killed_during_the_build(world: World, area: Path) -> None:
    redis = RedisServer(area / "redis-D").start()
    env = _env(area, "D")
    ws = area / "ws-D"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    args = setup_args(world, ws, LABEL, "--ccache-remote", redis.url, "--json")
    proc = subprocess.Popen(tritondev_argv(*args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Shut the server down once a few compilations went through it (they stored their results).
        deadline = time.monotonic() + 300
        while _counters(env).get("cache_miss", 0) < 3:
            assert proc.poll() is None, "setup ended before the build got going"
            assert time.monotonic() < deadline
            time.sleep(0.2)
        stored = redis.keys()
        redis.stop()
        stopped_while_running = proc.poll() is None
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        redis.stop()
    OUTPUTS.extend([stdout, stderr])
    assert stopped_while_running and stored > 0
    report = _report(subprocess.CompletedProcess(args, proc.returncode, stdout, stderr))
    _verified(report, ws, world)
    counts = delta({}, _counters(env))
    assert counts.remote_errors > 0 and counts.misses == counts.calls
    assert any("ccache remote storage failed" in n for n in report["notices"]), report["notices"]
    _doctor_says_unreachable(redis.url, env)


def _remote_check(url: str, env: dict[str, str]) -> tuple[dict[str, Any], int]:
    proc = _run("doctor", "--check", "toolchain.ccache-remote", "--json", env={**env, "TRITONDEV_CCACHE_REMOTE": url})
    (check,) = json.loads(proc.stdout)["checks"]
    return check, proc.returncode


def test_doctor_reports_a_running_remote_ok(redis_server: RedisServer, area: Path) -> None:
    env = _env(area, "doctor", TRITONDEV_CCACHE_REMOTE=redis_server.url)
    check, returncode = _remote_check(redis_server.url, env)
    assert check["status"] == "ok" and "PONG" in check["summary"], check
    assert check["data"]["proven"] and check["data"]["fetched"] and check["data"]["remote_errors"] == 0, check
    assert returncode == 0
    plain = _run(
        "doctor",
        "--check",
        "toolchain.ccache-remote",
        env={k: v for k, v in env.items() if k != "TRITONDEV_CCACHE_REMOTE"},
    )
    assert plain.returncode == 0 and "no ccache remote configured" in plain.stderr + plain.stdout


@pytest.mark.parametrize(
    ("userinfo", "status", "needle"),
    [
        (f":{PASSWORD}", "ok", "fetched it back"),  # the usual URL, as ccache is handed it
        (PASSWORD, "ok", "fetched it back"),
        (f"default:{PASSWORD}", "ok", "fetched it back"),
        (":wrong-password", "error", "WRONGPASS"),
        ("", "error", "NOAUTH"),
    ],
)
def test_doctor_proves_the_remote_through_ccache(
    password_redis: RedisServer, area: Path, userinfo: str, status: str, needle: str
) -> None:
    """What ccache itself gets from the server: a store and a fetch, or the server's refusal."""
    url = password_redis.url_with(userinfo) if userinfo else f"redis://127.0.0.1:{password_redis.port}"
    env = _env(area, "doctor-proof")
    check, returncode = _remote_check(url, env)
    assert check["status"] == status and needle in check["summary"] + " ".join(check["details"]), check
    assert returncode == (0 if status == "ok" else 1)
    if status == "ok":
        assert check["data"]["stored"] >= 1 and check["data"]["fetched"], check
    else:
        assert check["data"]["remote_errors"] > 0 and not check["data"]["proven"], check
        assert "wrong-password" not in json.dumps(check)
    assert not Path(env["CCACHE_DIR"]).exists()  # the user's own cache was not used


def test_build_command_uses_the_remote(team: dict[str, Any]) -> None:
    """`tritondev build` after the local cache was emptied: the recompiled file comes from the remote."""
    b = team["B"]
    env = {**b["env"], "TRITONDEV_CCACHE_REMOTE": team["url"]}
    subprocess.run(["ccache", "--clear"], env=env, check=True, capture_output=True)
    compiled = json.loads((b["ws"] / "src" / "triton" / "compile_commands.json").read_text())
    source = Path(compiled[0]["directory"], compiled[0]["file"])
    os.utime(source)  # newer than its object: ninja recompiles it, same content
    proc = _run("build", "--workspace", str(b["ws"]), "--json", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = json.loads(proc.stdout)["ccache"]["Triton build"]
    assert stats["remote_hits"] >= 1 and stats["misses"] == 0 and stats["remote_errors"] == 0, stats


def test_the_password_appears_nowhere(
    team: dict[str, Any], world: World, area: Path, redis_server: RedisServer
) -> None:
    url = redis_server.url
    env = _env(area, "shown", TRITONDEV_CCACHE_REMOTE=url)
    ws = area / "ws-shown"
    shown = [
        _run("config", "show", "--workspace", str(ws), env=env),
        _run("config", "show", "--json", "--workspace", str(ws), env=env),
        _run(*setup_args(world, ws, LABEL, "--dry-run"), env=env),
        _run(*setup_args(world, ws, LABEL, "--dry-run", "--json"), env=env),
        _run(*setup_args(world, ws, LABEL, "--dry-run", "-v", "--ccache-remote", url), env=env),
        _run("doctor", "--workspace", str(ws), "-v", env=env),
        _run("doctor", "--workspace", str(ws), "--json", env=env),
    ]
    # The URL is used (masked), not dropped: the plan hands it to the build commands.
    plan = json.loads(shown[3].stdout)
    build_envs = [c["env"] for c in plan["commands"] if c["step"] in STEPS]
    assert build_envs and all(e.get("CCACHE_REMOTE_STORAGE", "").startswith("redis://***:***@") for e in build_envs)
    assert "redis://***:***@" in shown[2].stderr + shown[2].stdout
    leaks = [i for i, text in enumerate(OUTPUTS + [p.stdout + p.stderr for p in shown]) if PASSWORD in text]
    assert not leaks, f"password printed by command outputs {leaks}"
    # Nor in any file the workspaces hold: logs, state, presets, build folders, the venv.
    for name in ("A", "B", "C", "D", "shown"):
        folder = area / f"ws-{name}"
        if folder.exists():
            grep = subprocess.run(["grep", "-rlI", "--", PASSWORD, str(folder)], capture_output=True, text=True)
            assert grep.stdout == "", f"password written to {grep.stdout}"
    assert os.listdir(area / "ws-A" / "logs")  # there were logs to search
