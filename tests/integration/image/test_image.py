"""The development image, really built and its entrypoint really run (slow tier: `-m image`).

No registry can be reached, so the base is made here: `debootstrap --variant=minbase bookworm`, its
root filesystem cached as a tarball under <repo>/.venv-cache/ and `podman import`ed. The image is then
built with `tritondev docker build --engine podman --isolation chroot --base <that>` (the CLI under
test), with build arguments UID=4321 GID=4322.

`podman run` does not work on these machines; `buildah run --isolation chroot` does. buildah run
does not apply the image's ENTRYPOINT (tini + entrypoint.sh), so every test calls
/usr/local/bin/entrypoint.sh explicitly, the way tini does; test_image_config checks that the
ENTRYPOINT really is tini followed by that script. Each test works in its own container.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.support.environ import child_environ

pytestmark = [pytest.mark.image, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[3]
CACHE = REPO / ".venv-cache"
BASE_TAR = CACHE / "image-base-bookworm-minbase.tar"
BASE_IMAGE = "localhost/tritondev-test-base:bookworm"
IMAGE = "localhost/tritondev-test:image-tier"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
ENTRYPOINT = "/usr/local/bin/entrypoint.sh"
BUILD_UID, BUILD_GID = 4321, 4322
TOOLS = ("podman", "buildah", "debootstrap", "tar")


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "building the image with debootstrap and podman --isolation chroot needs root"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (apt-get install {' '.join(missing)})"
    return None


def _run(argv: Sequence[str], *, timeout: float = 900, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, input=input)


def _check(argv: Sequence[str], *, timeout: float = 900) -> str:
    proc = _run(argv, timeout=timeout)
    assert proc.returncode == 0, f"{argv[:3]} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _base_tarball() -> Path:
    """A minimal Debian 12 root filesystem, made once per machine and kept in .venv-cache."""
    CACHE.mkdir(exist_ok=True)
    with (CACHE / "image-base.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if BASE_TAR.is_file():
            return BASE_TAR
        rootfs = CACHE / "image-base-rootfs.partial"
        shutil.rmtree(rootfs, ignore_errors=True)
        started = time.monotonic()
        _check(["debootstrap", "--variant=minbase", "bookworm", str(rootfs), DEBIAN_MIRROR], timeout=1800)
        partial = BASE_TAR.with_suffix(".tar.partial")
        _check(["tar", "-C", str(rootfs), "-cf", str(partial), "."])
        partial.rename(BASE_TAR)
        shutil.rmtree(rootfs, ignore_errors=True)
        print(f"debootstrap of the base took {time.monotonic() - started:.0f} s", file=sys.stderr)
    return BASE_TAR


def _base_image() -> str:
    # Imported once: a fresh import would get a new id and throw away podman's layer cache.
    if _run(["podman", "image", "exists", BASE_IMAGE]).returncode != 0:
        _check(["podman", "import", "--change", 'CMD ["/bin/bash"]', str(_base_tarball()), BASE_IMAGE])
    return BASE_IMAGE


def _local_ca_certs() -> list[str]:
    # CAs added to this machine's trust store (an egress proxy that inspects TLS): pip inside the
    # build goes out through the same network, so the image must trust them too.
    folder = Path("/usr/local/share/ca-certificates")
    certs = sorted(folder.rglob("*.crt")) if folder.is_dir() else []
    return [arg for cert in certs for arg in ("--ca-cert", str(cert))]


# The image tags are the machine's, not the run's: two runs of the suite at once (two checkouts) build
# one after the other, and each test uses the image by its id, which a later build's tag cannot move.
MACHINE_LOCK = Path("/tmp/tritondev-tests-podman-image.lock")


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> str:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    home = tmp_path_factory.mktemp("home")
    env = child_environ()
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    with MACHINE_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        base = _base_image()
        started = time.monotonic()
        proc = run_cli(
            "docker",
            "build",
            "--engine",
            "podman",
            "--isolation",
            "chroot",
            "--base",
            base,
            "--tag",
            IMAGE,
            "--uid",
            str(BUILD_UID),
            "--gid",
            str(BUILD_GID),
            "--workspace",
            str(home / "ws"),
            *_local_ca_certs(),
            env=env,
            cwd=home,
            timeout=1800,
        )
        assert proc.returncode == 0, proc.stderr[-5000:]
        image_id = _check(["podman", "image", "inspect", "--format", "{{.Id}}", IMAGE]).strip()
    print(f"tritondev docker build took {time.monotonic() - started:.0f} s", file=sys.stderr)
    # A real build keeps its log in the workspace.
    assert (home / "ws" / "logs" / "docker-build.log").is_file()
    return image_id


@contextmanager
def container(image: str) -> Iterator[str]:
    name = _check(["buildah", "from", "--pull=false", image]).strip().splitlines()[-1]
    try:
        yield name
    finally:
        _run(["buildah", "rm", name])


def entry(
    ctr: str,
    *args: str,
    env: dict[str, str] | None = None,
    volumes: Sequence[tuple[Path, str]] = (),
    user: str | None = None,
    input_text: str = "",
) -> subprocess.CompletedProcess[str]:
    """Run the image's entrypoint script in `ctr` with `args`, as tini would."""
    argv = ["buildah", "run", "--isolation", "chroot"]
    for key, value in (env or {}).items():
        argv += ["--env", f"{key}={value}"]
    for host, target in volumes:
        argv += ["--volume", f"{host}:{target}"]
    if user is not None:
        argv += ["--user", user]
    argv += [ctr, "--", ENTRYPOINT, *args]
    return _run(argv, input=input_text, timeout=300)


def _folder(path: Path, uid: int, gid: int) -> Path:
    path.mkdir(parents=True)
    os.chown(path, uid, gid)
    return path


# -- the image ------------------------------------------------------------------------------------


def test_image_config(image: str) -> None:
    config = json.loads(_check(["podman", "image", "inspect", image]))[0]["Config"]
    # tini is PID 1 and forwards signals; the entrypoint script runs under it.
    assert config["Entrypoint"] == ["/usr/bin/tini", "--", ENTRYPOINT]
    assert set(config["Volumes"]) == {"/workspace", "/ccache"}
    env = dict(item.split("=", 1) for item in config["Env"])
    assert env["TRITONDEV_WORKSPACE"] == "/workspace"
    assert env["CCACHE_DIR"] == "/ccache"
    assert env["CCACHE_MAXSIZE"] == "20G"
    # Build-time settings and build arguments do not leak into the image's environment.
    assert not {"DEBIAN_FRONTEND", "EXTRA_CA_CERTS", "UID", "GID"} & set(env)
    # The image starts as root so that the entrypoint can map the user, then drops root.
    assert config.get("User", "") in ("", "root", "0")


def test_help(image: str) -> None:
    with container(image) as ctr:
        proc = entry(ctr, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage: tritondev" in proc.stdout
    for command in ("doctor", "docker", "config"):
        assert command in proc.stdout


def test_doctor_json(image: str) -> None:
    with container(image) as ctr:
        proc = entry(ctr, "doctor", "--json")
    # No GPU and no target environment here: doctor may find errors (exit 1), but it reports.
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    status = {check["name"]: check["status"] for check in report["checks"]}
    # The toolchain the image exists to provide.
    for name in (
        "toolchain.git",
        "toolchain.cmake",
        "toolchain.ninja",
        "toolchain.compilers",
        "toolchain.lld",
        "toolchain.ccache",
    ):
        assert status[name] == "ok", (name, report)
    assert report["workspace"] == "/workspace"


def test_setup_dry_run(image: str, tmp_path: Path) -> None:
    # GitHub cannot be reached: setup reads the pins from local mirrors of the test world's repositories.
    from tests.world.world import build_world

    world = build_world(tmp_path / "world")
    for root, dirs, files in os.walk(world.git_root):
        for name in (root, *(os.path.join(root, n) for n in dirs + files)):
            os.lchown(name, BUILD_UID, BUILD_GID)  # git refuses repositories owned by someone else
    ws = _folder(tmp_path / "ws", BUILD_UID, BUILD_GID)
    with container(image) as ctr:
        proc = entry(
            ctr, "setup", "--dry-run", "--mirror", "/mirror", volumes=[(ws, "/workspace"), (world.git_root, "/mirror")]
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    plan = proc.stdout + proc.stderr
    assert world.pytorch_main.triton in plan  # the pinned Triton commit, read inside the container
    assert "ninja -C /workspace/build/llvm/" in plan
    assert "CMAKE_CXX_COMPILER_LAUNCHER=/usr/bin/ccache" in plan
    # --dry-run changed nothing in the workspace.
    assert not (ws / "src").exists()


# -- dispatch -------------------------------------------------------------------------------------


def test_passthrough_command_and_its_exit_status(image: str) -> None:
    with container(image) as ctr:
        proc = entry(ctr, "bash", "-c", "echo hi; id -un; exit 3")
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.split() == ["hi", "triton"]


def test_the_command_replaces_the_entrypoint(image: str) -> None:
    # exec all the way (entrypoint -> setpriv -> entrypoint -> command): the command's parent is
    # whatever started the entrypoint (tini in a real container), so signals reach it directly.
    with container(image) as ctr:
        proc = entry(ctr, "sh", "-c", "cat /proc/$PPID/comm")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() not in ("entrypoint.sh", "bash", "setpriv", "sh")


def test_tini_forwards_a_signal_to_the_command(image: str) -> None:
    # The image's real ENTRYPOINT chain, tini -> entrypoint.sh -> setpriv -> command. buildah's chroot
    # isolation has no PID namespace, so tini is not PID 1 here: TINI_SUBREAPER tells it that is fine,
    # and the TERM is sent from outside, to tini's pid, as an engine's `stop` would.
    script = 'trap "echo got-TERM-as-$(id -un); kill $!; exit 0" TERM; echo $PPID; sleep 60 >/dev/null & wait'
    with container(image) as ctr:
        argv = [
            "buildah",
            "run",
            "--isolation",
            "chroot",
            "--env",
            "TINI_SUBREAPER=1",
            ctr,
            "--",
            "/usr/bin/tini",
            "--",
            ENTRYPOINT,
            "bash",
            "-c",
            script,
        ]
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            tini = int(proc.stdout.readline())
            assert Path(f"/proc/{tini}/comm").read_text().strip() == "tini"
            os.kill(tini, signal.SIGTERM)
            out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert out.strip() == "got-TERM-as-triton"


def test_no_arguments_doctor_summary_then_a_shell(image: str) -> None:
    with container(image) as ctr:
        proc = entry(ctr, input_text="echo from-the-shell; id -un\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["from-the-shell", "triton"]
    assert "tritondev doctor:" in proc.stderr and " ok, " in proc.stderr


# -- user mapping ---------------------------------------------------------------------------------


def _ids_and_file(ctr: str, ws: Path, env: dict[str, str] | None = None) -> tuple[list[str], os.stat_result]:
    proc = entry(
        ctr, "sh", "-c", "id -u; id -g; touch /workspace/made-in-container", volumes=[(ws, "/workspace")], env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split(), (ws / "made-in-container").stat()


def test_build_arguments_set_the_users_ids(image: str, tmp_path: Path) -> None:
    ws = _folder(tmp_path / "ws", BUILD_UID, BUILD_GID)
    with container(image) as ctr:
        ids, made = _ids_and_file(ctr, ws)
        passwd = entry(ctr, "getent", "passwd", "triton").stdout
    assert ids == [str(BUILD_UID), str(BUILD_GID)]
    assert (made.st_uid, made.st_gid) == (BUILD_UID, BUILD_GID)
    assert passwd.split(":")[2:4] == [str(BUILD_UID), str(BUILD_GID)]


def test_host_uid_remaps_the_user_at_start(image: str, tmp_path: Path) -> None:
    ws = _folder(tmp_path / "ws", 5555, 5556)
    with container(image) as ctr:
        ids, made = _ids_and_file(ctr, ws, env={"HOST_UID": "5555", "HOST_GID": "5556"})
        home = entry(ctr, "sh", "-c", 'stat -c %u "$HOME"; echo "$HOME"', env={"HOST_UID": "5555", "HOST_GID": "5556"})
    assert ids == ["5555", "5556"]
    assert (made.st_uid, made.st_gid) == (5555, 5556)
    assert home.stdout.split() == ["5555", "/home/triton"]


def test_without_host_uid_the_workspace_owner_decides(image: str, tmp_path: Path) -> None:
    ws = _folder(tmp_path / "ws", 6666, 6667)
    with container(image) as ctr:
        ids, made = _ids_and_file(ctr, ws)
    assert ids == ["6666", "6667"]
    assert (made.st_uid, made.st_gid) == (6666, 6667)


def test_root_owned_workspace_keeps_root(image: str, tmp_path: Path) -> None:
    # Rootless engines map the host user to the container's root; its files must stay writable.
    ws = _folder(tmp_path / "ws", 0, 0)
    with container(image) as ctr:
        ids, made = _ids_and_file(ctr, ws)
    assert ids == ["0", "0"]
    assert made.st_uid == 0


def test_started_as_another_user_gets_a_writable_home_and_ccache(image: str, tmp_path: Path) -> None:
    # docker run --user / podman --userns=keep-id: no root, an id the image does not know.
    with container(image) as ctr:
        proc = entry(ctr, "sh", "-c", 'id -u; echo "$HOME"; echo "$CCACHE_DIR"; touch "$HOME/x"', user="7001:7001")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["7001", "/tmp/home-7001", "/tmp/home-7001/.ccache"]
    assert "not writable" in proc.stderr


def test_bad_host_uid_is_refused(image: str) -> None:
    with container(image) as ctr:
        proc = entry(ctr, "id", env={"HOST_UID": "alice"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "HOST_UID must be a number" in proc.stderr
