"""Fast tests of the docker/podman command plans and of `tritondev docker ... --dry-run`.

No container is started here: the plans are pure functions, and --dry-run only prints. The image
itself is built and exercised in test_image.py (slow tier).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.docker import plan as dockerplan
from bootstrap.docker.plan import Engine

REPO = Path(__file__).resolve().parents[2]
DOCKER = Engine("docker", "docker")
PODMAN = Engine("podman", "podman")
ROOTLESS_PODMAN = Engine("podman", "podman", rootless=True)
ROOTLESS_DOCKER = Engine("docker", "docker", rootless=True)


def _run(engine: Engine, **kw: object) -> list[str]:
    args: dict[str, object] = dict(
        image="tritondev:t", workspace=Path("/home/u/ws"), ccache_dir=Path("/home/u/.cache/c"), host_uid=1234,
        host_gid=987,
    )
    args.update(kw)
    return dockerplan.run_command(engine, **args)  # type: ignore[arg-type]


def _pairs(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


# -- engine choice --------------------------------------------------------------------------------


def test_engine_prefers_docker_then_podman() -> None:
    assert dockerplan.find_engine(None, {"docker": "/x/docker", "podman": "/x/podman"}.get) == "docker"
    assert dockerplan.find_engine(None, {"podman": "/x/podman"}.get) == "podman"


def test_no_engine_is_tool_missing() -> None:
    with pytest.raises(ToolMissing) as info:
        dockerplan.find_engine(None, {}.get)
    assert info.value.fix and "podman" in info.value.fix


def test_named_engine_is_kept_even_when_absent_and_unknown_is_usage_error() -> None:
    assert dockerplan.find_engine("podman", {}.get) == "podman"
    with pytest.raises(UsageError):
        dockerplan.find_engine("containerd", {}.get)


def test_podman_behind_a_docker_name_gets_podman_flags() -> None:
    assert dockerplan.flavour_of("docker", "podman version 4.3.1") == "podman"
    assert dockerplan.flavour_of("docker", "Docker version 28.2.2, build e6534b4") == "docker"
    assert dockerplan.docker_is_rootless('["name=seccomp,profile=builtin","name=rootless","name=cgroupns"]')
    assert not dockerplan.docker_is_rootless('["name=seccomp,profile=builtin","name=cgroupns"]')


# -- run ------------------------------------------------------------------------------------------


def test_gpu_flags_per_engine() -> None:
    docker = _run(DOCKER)
    assert _pairs(docker, "--gpus") == ["all"] and "--device" not in docker
    podman = _run(PODMAN)
    assert _pairs(podman, "--device") == ["nvidia.com/gpu=all"] and "--gpus" not in podman
    assert _pairs(podman, "--security-opt") == ["label=disable"]
    for engine in (DOCKER, PODMAN):
        plain = _run(engine, gpus=False)
        assert "--gpus" not in plain and "nvidia.com/gpu=all" not in plain


def test_volumes_image_and_entrypoint_arguments_in_order() -> None:
    argv = _run(DOCKER, args=["setup", "--build-type", "Debug"])
    assert argv[:4] == ["docker", "run", "--rm", "-i"]
    assert _pairs(argv, "-v") == ["/home/u/ws:/workspace", "/home/u/.cache/c:/ccache"]
    image_at = argv.index("tritondev:t")
    assert argv[image_at + 1 :] == ["setup", "--build-type", "Debug"]
    assert all(not a.startswith("-v") for a in argv[image_at:])


def test_tty_only_when_asked() -> None:
    assert "-t" not in _run(DOCKER)
    assert "-t" in _run(DOCKER, tty=True)


def test_user_mapping_per_engine() -> None:
    # Rootful engines: the entrypoint remaps the image's user to these ids before dropping root.
    assert _pairs(_run(DOCKER), "-e") == ["HOST_UID=1234", "HOST_GID=987"]
    assert _pairs(_run(PODMAN), "-e") == ["HOST_UID=1234", "HOST_GID=987"]
    # Rootless podman runs the container as the host user itself.
    rootless = _run(ROOTLESS_PODMAN)
    assert "--userns=keep-id" in rootless and "-e" not in rootless
    # Rootless docker: the container's root is the host user.
    assert _pairs(_run(ROOTLESS_DOCKER), "-e") == ["HOST_UID=0", "HOST_GID=0"]


def test_paths_that_would_split_the_volume_spec_are_refused() -> None:
    with pytest.raises(UsageError):
        _run(DOCKER, workspace=Path("/tmp/a:b"))


def test_image_reference_cannot_become_an_option() -> None:
    with pytest.raises(UsageError):
        _run(DOCKER, image="--privileged")


def test_default_ccache_dir_follows_xdg() -> None:
    home = Path("/home/u")
    assert dockerplan.default_ccache_dir({}, home) == home / ".cache/tritondev/ccache"
    assert dockerplan.default_ccache_dir({"XDG_CACHE_HOME": "/c"}, home) == Path("/c/tritondev/ccache")
    assert dockerplan.default_ccache_dir({"XDG_CACHE_HOME": "rel"}, home) == home / ".cache/tritondev/ccache"


# -- build ----------------------------------------------------------------------------------------


def test_build_command_for_podman_with_base_and_isolation() -> None:
    argv = dockerplan.build_command(
        PODMAN, context=REPO, tag="localhost/t:1", uid=4321, gid=4322, base="localhost/base:bookworm",
        isolation="chroot",
    )
    assert argv[:2] == ["podman", "build"]
    assert _pairs(argv, "-f") == [str(REPO / "docker" / "Dockerfile")]
    assert _pairs(argv, "-t") == ["localhost/t:1"]
    assert _pairs(argv, "--build-arg") == ["UID=4321", "GID=4322", "BASE=localhost/base:bookworm"]
    assert _pairs(argv, "--isolation") == ["chroot"]
    assert argv[-1] == str(REPO)


def test_build_without_base_uses_the_dockerfile_default() -> None:
    argv = dockerplan.build_command(DOCKER, context=REPO, tag="t:1", uid=1000, gid=1000)
    assert not any(a.startswith("BASE=") for a in argv)
    assert f"ARG BASE={dockerplan.DEFAULT_BASE}" in (REPO / "docker" / "Dockerfile").read_text()


def test_isolation_is_podman_only_and_checked() -> None:
    with pytest.raises(UsageError):
        dockerplan.build_command(DOCKER, context=REPO, tag="t:1", uid=1, gid=1, isolation="chroot")
    with pytest.raises(UsageError):
        dockerplan.build_command(PODMAN, context=REPO, tag="t:1", uid=1, gid=1, isolation="vm")


def test_root_builds_an_image_whose_user_is_not_root() -> None:
    assert dockerplan.image_ids(0, 0) == (1000, 1000)
    assert dockerplan.image_ids(501, 20) == (501, 20)
    with pytest.raises(UsageError):
        dockerplan.build_command(DOCKER, context=REPO, tag="t:1", uid=0, gid=1000)


def test_context_must_be_a_source_checkout(tmp_path: Path) -> None:
    assert dockerplan.source_checkout(REPO / "bootstrap") == REPO
    with pytest.raises(UsageError):
        dockerplan.check_context(tmp_path)


def test_ca_certificates_are_read_and_checked(tmp_path: Path) -> None:
    cert = tmp_path / "ca.crt"
    cert.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    assert dockerplan.read_ca_certs([cert]) == cert.read_text().strip()
    assert dockerplan.read_ca_certs([]) is None
    key = tmp_path / "key.pem"
    key.write_text(cert.read_text() + "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n")
    for bad in (key, tmp_path / "missing.crt"):
        with pytest.raises(UsageError):
            dockerplan.read_ca_certs([bad])


def test_dockerignore_keeps_the_context_small() -> None:
    # The context is the checkout root; only what the Dockerfile copies may be sent to the engine.
    lines = [ln.strip() for ln in (REPO / ".dockerignore").read_text().splitlines()]
    assert "*" in lines
    allowed = {ln[1:].rstrip("/") for ln in lines if ln.startswith("!")}
    assert allowed == {"pyproject.toml", "README.md", "bootstrap", "docker"}
    copied = set()
    for line in (REPO / "docker" / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            copied.update(p.rstrip("/").split("/")[0] for p in line.split()[1:-1])
    assert copied <= allowed


# -- the CLI --------------------------------------------------------------------------------------


def _json(proc) -> dict:  # type: ignore[no-untyped-def]
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    return data


def test_cli_run_dry_run_per_engine(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ws = tmp_path / "ws"
    for engine, gpu in (("docker", ["--gpus", "all"]), ("podman", ["--device", "nvidia.com/gpu=all"])):
        proc = cli("docker", "run", "--engine", engine, "--workspace", str(ws), "--dry-run", "--json", "--",
                   "setup", "--build-type", "Debug")
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


def test_cli_run_dry_run_human_output_and_no_gpus(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proc = cli("docker", "run", "--engine", "podman", "--no-gpus", "--workspace", str(tmp_path / "w"), "--dry-run",
               "--tag", "localhost/x:1", "--", "bash", "-c", "echo hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("[dry-run]"))
    assert line.startswith("[dry-run] podman run --rm -i ")
    assert line.endswith("localhost/x:1 bash -c 'echo hi'")
    assert "nvidia.com/gpu" not in line


def test_cli_build_dry_run(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proc = cli("docker", "build", "--engine", "podman", "--isolation", "chroot", "--base", "localhost/b:1",
               "--uid", "4321", "--gid", "4322", "--workspace", str(tmp_path / "w"), "--dry-run", "--json")
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
def test_cli_bad_input_is_a_usage_error(cli, tmp_path: Path, args: list[str], code: int) -> None:  # type: ignore[no-untyped-def]
    proc = cli(*args, "--workspace", str(tmp_path / "w"), "--dry-run")
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error:" in proc.stderr
    assert not (tmp_path / "w").exists()


def test_cli_run_without_engine_binary_is_tool_missing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
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
        p for folder in ("docker", "shell") for p in (REPO / folder).iterdir()
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


def test_cli_run_creates_the_folders_and_starts_the_planned_command(cli, tmp_path: Path, fake_docker) -> None:  # type: ignore[no-untyped-def]
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


def test_cli_run_returns_the_containers_status(cli, tmp_path: Path, fake_docker) -> None:  # type: ignore[no-untyped-def]
    proc = cli("docker", "run", "--workspace", str(tmp_path / "ws"), "--", "false",
               env={**fake_docker, "FAKE_DOCKER_STATUS": "3"})
    assert proc.returncode == 3, proc.stderr


def test_cli_run_engine_failure_is_exit_4_with_a_fix(cli, tmp_path: Path, fake_docker) -> None:  # type: ignore[no-untyped-def]
    proc = cli("docker", "run", "--workspace", str(tmp_path / "ws"), env={**fake_docker, "FAKE_DOCKER_STATUS": "125"})
    assert proc.returncode == 4, proc.stderr
    assert "tritondev docker build" in proc.stderr and "--no-gpus" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_run_json_keeps_stdout_for_the_document(cli, tmp_path: Path, fake_docker) -> None:  # type: ignore[no-untyped-def]
    proc = cli("docker", "run", "--json", "--workspace", str(tmp_path / "ws"), env=fake_docker)
    data = _json(proc)
    assert data["returncode"] == 0 and data["dry_run"] is False
    assert "container-output" in proc.stderr


def test_cli_run_with_rootless_docker_keeps_root_in_the_container(cli, tmp_path: Path, fake_docker) -> None:  # type: ignore[no-untyped-def]
    env = {**fake_docker, "FAKE_DOCKER_INFO": '["name=seccomp,profile=builtin","name=rootless"]'}
    data = _json(cli("docker", "run", "--dry-run", "--json", "--workspace", str(tmp_path / "ws"), env=env))
    assert data["engine"]["rootless"] is True
    assert _pairs(data["argv"], "-e") == ["HOST_UID=0", "HOST_GID=0"]
