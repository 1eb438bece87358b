"""Fast tests of the docker/podman command plans and of `tritondev docker ... --dry-run`.

No container is started here: the plans are pure functions, and --dry-run only prints. The image
itself is built and exercised in test_image.py (slow tier).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import pytest

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing has it from Python 3.11; only mypy reads it here

from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.docker import plan as dockerplan
from bootstrap.docker.plan import Engine

REPO = Path(__file__).resolve().parents[3]
DOCKER = Engine("docker", "docker")
PODMAN = Engine("podman", "podman")
ROOTLESS_PODMAN = Engine("podman", "podman", rootless=True)
ROOTLESS_DOCKER = Engine("docker", "docker", rootless=True)


class RunChanges(TypedDict, total=False):
    """The options of run_command that the tests vary and leave at its defaults otherwise."""

    gpus: bool
    tty: bool
    args: Sequence[str]


def _run(
    engine: Engine, image: str = "tritondev:t", workspace: Path = Path("/home/u/ws"), **changes: Unpack[RunChanges]
) -> list[str]:
    return dockerplan.run_command(
        engine,
        image=image,
        workspace=workspace,
        ccache_dir=Path("/home/u/.cache/c"),
        host_uid=1234,
        host_gid=987,
        **changes,
    )


def _pairs(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


# -- engine choice --------------------------------------------------------------------------------


def which_of(found: dict[str, str]) -> Callable[[str], str | None]:
    """A `shutil.which` that finds exactly the programs in `found`."""
    return lambda program: found.get(program)


def test_engine_prefers_docker_then_podman() -> None:
    assert dockerplan.find_engine(None, which_of({"docker": "/x/docker", "podman": "/x/podman"})) == "docker"
    assert dockerplan.find_engine(None, which_of({"podman": "/x/podman"})) == "podman"


def test_no_engine_is_tool_missing() -> None:
    with pytest.raises(ToolMissing) as info:
        dockerplan.find_engine(None, which_of({}))
    assert info.value.fix and "podman" in info.value.fix


def test_named_engine_is_kept_even_when_absent_and_unknown_is_usage_error() -> None:
    assert dockerplan.find_engine("podman", which_of({})) == "podman"
    with pytest.raises(UsageError):
        dockerplan.find_engine("containerd", which_of({}))


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
        PODMAN,
        context=REPO,
        tag="localhost/t:1",
        uid=4321,
        gid=4322,
        base="localhost/base:bookworm",
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
    copied: set[str] = set()
    for line in (REPO / "docker" / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            copied.update(p.rstrip("/").split("/")[0] for p in line.split()[1:-1])
    assert copied <= allowed


# -- the CLI --------------------------------------------------------------------------------------
