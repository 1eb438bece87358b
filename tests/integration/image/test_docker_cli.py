"""Fast tests of the docker/podman command plans and of `tritondev docker ... --dry-run`.

No container is started here: the plans are pure functions, and --dry-run only prints. The image
itself is built and exercised in test_image.py (slow tier).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

REPO = Path(__file__).resolve().parents[3]


def _pairs(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


# -- engine choice --------------------------------------------------------------------------------


def _json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    return data


def test_cli_run_dry_run_per_engine(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for engine, gpu in (("docker", ["--gpus", "all"]), ("podman", ["--device", "nvidia.com/gpu=all"])):
        proc = cli(
            "docker",
            "run",
            "--engine",
            engine,
            "--workspace",
            str(ws),
            "--dry-run",
            "--json",
            "--",
            "setup",
            "--build-type",
            "Debug",
        )
        data = _json(proc)
        argv = data["argv"]
        assert data["dry_run"] is True and data["engine"]["flavour"] == engine
        assert argv[0] == engine and argv[1] == "run"
        at = argv.index(gpu[0])
        assert argv[at : at + 2] == gpu
        assert f"{ws}:/workspace" in argv
        assert any(a.endswith(":/ccache") for a in argv)
        assert argv[-4:] == ["tritondev:0.1.0", "setup", "--build-type", "Debug"]
        rootless = data["engine"]["rootless"]
        if engine == "podman":
            assert rootless == (os.getuid() != 0)
        if rootless and engine == "podman":
            assert "--userns=keep-id" in argv
        elif rootless:  # a rootless docker daemon on this machine: its root is this user
            assert "HOST_UID=0" in argv
        else:
            assert f"HOST_UID={os.getuid()}" in argv and f"HOST_GID={os.getgid()}" in argv
    # --dry-run changes nothing: the workspace and ccache folders are not created.
    assert not ws.exists()
    assert not (tmp_path / "home" / ".cache").exists()


def test_cli_run_dry_run_human_output_and_no_gpus(cli: Cli, tmp_path: Path) -> None:
    proc = cli(
        "docker",
        "run",
        "--engine",
        "podman",
        "--no-gpus",
        "--workspace",
        str(tmp_path / "w"),
        "--dry-run",
        "--tag",
        "localhost/x:1",
        "--",
        "bash",
        "-c",
        "echo hi",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("[dry-run]"))
    assert line.startswith("[dry-run] podman run --rm -i ")
    assert line.endswith("localhost/x:1 bash -c 'echo hi'")
    assert "nvidia.com/gpu" not in line


def test_cli_build_dry_run(cli: Cli, tmp_path: Path) -> None:
    proc = cli(
        "docker",
        "build",
        "--engine",
        "podman",
        "--isolation",
        "chroot",
        "--base",
        "localhost/b:1",
        "--uid",
        "4321",
        "--gid",
        "4322",
        "--workspace",
        str(tmp_path / "w"),
        "--dry-run",
        "--json",
    )
    data = _json(proc)
    argv = data["argv"]
    assert argv[:2] == ["podman", "build"]
    assert _pairs(argv, "--build-arg") == ["UID=4321", "GID=4322", "BASE=localhost/b:1"]
    assert argv[-1] == str(REPO)
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["docker", "build", "--engine", "docker", "--isolation", "chroot"], 2),
        (["docker", "build", "--engine", "lxc"], 2),
        (["docker", "build", "--context", "/"], 2),
        (["docker", "build", "--uid", "0"], 2),
        (["docker", "build", "--ca-cert", "/etc/hostname"], 2),
        (["docker", "run", "--engine", "docker", "--tag", "-x"], 2),
    ],
)
def test_cli_bad_input_is_a_usage_error(cli: Cli, tmp_path: Path, args: list[str], code: int) -> None:
    proc = cli(*args, "--workspace", str(tmp_path / "w"), "--dry-run")
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error:" in proc.stderr
    assert not (tmp_path / "w").exists()


def test_cli_run_without_engine_binary_is_tool_missing(cli: Cli, tmp_path: Path) -> None:
    # An empty PATH (plus python) stands for a machine with neither docker nor podman.
    empty = tmp_path / "bin"
    empty.mkdir()
    proc = cli("docker", "run", "--workspace", str(tmp_path / "w"), env={"PATH": str(empty)})
    assert proc.returncode == 3, proc.stderr
    assert "podman" in proc.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_shellcheck_docker_and_shell_scripts() -> None:
    import subprocess

    scripts = sorted(
        p
        for folder in ("docker", "shell")
        for p in (REPO / folder).iterdir()
        if p.is_file() and p.read_bytes()[:2] == b"#!" and b"sh" in p.read_bytes().splitlines()[0]
    )
    assert REPO / "docker" / "entrypoint.sh" in scripts
    proc = subprocess.run(["shellcheck", *map(str, scripts)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- a real `tritondev docker run`, with a stand-in engine -------------------------------------------
# No container can be started on these machines (no docker daemon; `podman run` is refused by the
# OCI runtime), so a small script named `docker` stands in for the engine: it answers the probes
# (--version, info) and records the argv of `run`. What is tested is tritondev's side: the folders
# it creates, the command it starts, how the exit status comes back, where the output goes.

FAKE_DOCKER = """#!/bin/sh
case "$1" in
  --version) echo "Docker version 99.0.0, build test" ;;
  info) echo "$FAKE_DOCKER_INFO" ;;
  run) printf '%s\\n' "$@" > "$FAKE_DOCKER_LOG"; echo container-output; exit "$FAKE_DOCKER_STATUS" ;;
  *) exit 64 ;;
esac
"""


@pytest.fixture
def fake_docker(tmp_path: Path, clean_env: dict[str, str]) -> dict[str, str]:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    script = bin_dir / "docker"
    script.write_text(FAKE_DOCKER)
    script.chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{clean_env['PATH']}",
        "FAKE_DOCKER_LOG": str(tmp_path / "docker-argv.txt"),
        "FAKE_DOCKER_INFO": '["name=seccomp,profile=builtin","name=cgroupns"]',
        "FAKE_DOCKER_STATUS": "0",
    }


def test_cli_run_creates_the_folders_and_starts_the_planned_command(
    cli: Cli, tmp_path: Path, fake_docker: dict[str, str]
) -> None:
    ws = tmp_path / "ws"
    args = ("docker", "run", "--engine", "docker", "--workspace", str(ws), "--", "setup", "--dry-run")
    planned = _json(cli(*args[:-3], "--dry-run", "--json", *args[-3:], env=fake_docker))["argv"]
    proc = cli(*args, env=fake_docker)
    assert proc.returncode == 0, proc.stderr
    assert "container-output" in proc.stdout
    ran = Path(fake_docker["FAKE_DOCKER_LOG"]).read_text().splitlines()
    assert ["docker", *ran] == planned
    assert "$ docker run --rm -i" in proc.stderr  # what runs in the user's name is shown
    assert ws.is_dir()
    assert (tmp_path / "home" / ".cache" / "tritondev" / "ccache").is_dir()


def test_cli_run_returns_the_containers_status(cli: Cli, tmp_path: Path, fake_docker: dict[str, str]) -> None:
    proc = cli(
        "docker",
        "run",
        "--workspace",
        str(tmp_path / "ws"),
        "--",
        "false",
        env={**fake_docker, "FAKE_DOCKER_STATUS": "3"},
    )
    assert proc.returncode == 3, proc.stderr


def test_cli_run_engine_failure_is_exit_4_with_a_fix(cli: Cli, tmp_path: Path, fake_docker: dict[str, str]) -> None:
    proc = cli("docker", "run", "--workspace", str(tmp_path / "ws"), env={**fake_docker, "FAKE_DOCKER_STATUS": "125"})
    assert proc.returncode == 4, proc.stderr
    assert "tritondev docker build" in proc.stderr and "--no-gpus" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_run_json_keeps_stdout_for_the_document(cli: Cli, tmp_path: Path, fake_docker: dict[str, str]) -> None:
    proc = cli("docker", "run", "--json", "--workspace", str(tmp_path / "ws"), env=fake_docker)
    data = _json(proc)
    assert data["returncode"] == 0 and data["dry_run"] is False
    assert "container-output" in proc.stderr


def test_cli_run_with_rootless_docker_keeps_root_in_the_container(
    cli: Cli, tmp_path: Path, fake_docker: dict[str, str]
) -> None:
    env = {**fake_docker, "FAKE_DOCKER_INFO": '["name=seccomp,profile=builtin","name=rootless"]'}
    data = _json(cli("docker", "run", "--dry-run", "--json", "--workspace", str(tmp_path / "ws"), env=env))
    assert data["engine"]["rootless"] is True
    assert _pairs(data["argv"], "-e") == ["HOST_UID=0", "HOST_GID=0"]
