"""The docker/podman commands that build and run the development image (docker/Dockerfile).

Pure functions: what they need to know about the machine (which engine is installed, the user's
ids, whether the engine is rootless) comes in as arguments, and they return argv lists that the
command layer runs through the runner. Nothing here starts a process or touches the disk.

Who owns the files a container writes into the mounted workspace:
- docker (rootful daemon), rootful podman: the container starts as root; HOST_UID/HOST_GID tell the
  entrypoint which ids the image's user `triton` takes before it drops root.
- rootless podman: `--userns=keep-id` runs the container as the host user itself.
- rootless docker: the container's root *is* the host user, so HOST_UID=0 keeps it root.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bootstrap import __version__
from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.core.fsutil import read_regular

ENGINES = ("docker", "podman")
DEFAULT_BASE = "nvidia/cuda:12.8.1-devel-ubuntu24.04"
IMAGE_NAME = "tritondev"
DOCKERFILE = Path("docker") / "Dockerfile"
CONTAINER_WORKSPACE = "/workspace"
CONTAINER_CCACHE = "/ccache"
# The image's user is never root; root on the host builds an image whose user has these ids.
FALLBACK_ID = 1000
# `podman build --isolation` values (docker's --isolation means something else, on Windows).
ISOLATIONS = ("oci", "rootless", "chroot")
# /dev/shm for PyTorch's worker processes; the engines' default of 64 MiB is too small.
SHM_SIZE = "8g"

# An image reference: [registry[:port]/]name[:tag][@digest]. Checked loosely (the engine checks the
# rest), mainly so that a value can never be taken for an option.
_IMAGE_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@+-]*")


@dataclass(frozen=True)
class Engine:
    """A container engine: `flavour` decides the flags, `program` is what is run."""

    flavour: str  # "docker" or "podman"
    program: str
    rootless: bool = False

    def to_json(self) -> dict[str, object]:
        return {"flavour": self.flavour, "program": self.program, "rootless": self.rootless}


def default_tag() -> str:
    """The image `docker build` makes and `docker run` runs: named after this tritondev's version."""
    return f"{IMAGE_NAME}:{__version__}"


def find_engine(requested: str | None, which: Callable[[str], str | None]) -> str:
    """The engine program to use: the one asked for, else docker, else podman on PATH.

    An engine asked for by name is returned even when it is not installed, so that --dry-run can
    show its commands; running it then fails with ToolMissing (exit 3) in the runner.
    """
    if requested is not None:
        if requested not in ENGINES:
            raise UsageError(
                f"unknown container engine '{requested}'", fix=f"use --engine {' or --engine '.join(ENGINES)}"
            )
        return requested
    for name in ENGINES:
        if which(name) is not None:
            return name
    raise ToolMissing(
        "no container engine found: neither docker nor podman is on PATH",
        fix="install podman (apt-get install podman) or Docker Engine",
    )


def flavour_of(program: str, version_output: str) -> str:
    """docker or podman, from `<program> --version`: podman-docker installs a `docker` that is podman."""
    if "podman" in version_output.lower():
        return "podman"
    return "podman" if Path(program).name.startswith("podman") else "docker"


def docker_is_rootless(security_options: str) -> bool:
    """From `docker info --format '{{json .SecurityOptions}}'`: a rootless daemon lists name=rootless."""
    return "rootless" in security_options


# The largest user or group id every tool agrees on (uid_t is unsigned 32-bit, but useradd, tar and
# many others read it as a signed int; 2**32-1 means "no id").
MAX_ID = 2**31 - 1


def check_ids(uid: int, gid: int) -> None:
    """The image user's ids: a UsageError (exit 2) for root's or for numbers no tool takes."""
    if not (0 < uid <= MAX_ID and 0 < gid <= MAX_ID):
        raise UsageError(
            f"UID/GID must be numbers from 1 to {MAX_ID}, got {uid}/{gid}",
            fix="pass the --uid/--gid of a non-root user (`id -u`, `id -g` print yours)",
        )


def image_ids(uid: int, gid: int) -> tuple[int, int]:
    """UID/GID build arguments: the user's own ids, except root's (the image's user is never root)."""
    return (uid or FALLBACK_ID, gid or FALLBACK_ID)


def check_image_ref(value: str, option: str) -> str:
    if not _IMAGE_REF.fullmatch(value):
        raise UsageError(
            f"{option} {value!r} is not an image reference",
            fix=f"give {option} as name[:tag], e.g. {default_tag()} or {DEFAULT_BASE}",
        )
    return value


def check_context(context: Path) -> Path:
    """The build context must be a tritondev source tree: the Dockerfile installs tritondev from it."""
    missing = [p for p in (DOCKERFILE, Path("pyproject.toml"), Path("bootstrap")) if not (context / p).exists()]
    if missing:
        raise UsageError(
            f"{context} is not a tritondev source checkout (missing {', '.join(str(m) for m in missing)})",
            fix="run from a tritondev checkout, or pass --context <checkout>",
        )
    return context


def source_checkout(package_dir: Path) -> Path | None:
    """The checkout this tritondev runs from (`package_dir` is bootstrap/), or None for a wheel install."""
    root = package_dir.resolve().parent
    try:
        return check_context(root)
    except UsageError:
        return None


def build_command(
    engine: Engine,
    *,
    context: Path,
    tag: str,
    uid: int,
    gid: int,
    base: str | None = None,
    isolation: str | None = None,
    extra_ca_pem: str | None = None,
) -> list[str]:
    """`<engine> build` for docker/Dockerfile with the user's ids baked into the image's user."""
    check_ids(uid, gid)
    argv = [engine.program, "build", "-f", str(context / DOCKERFILE), "-t", check_image_ref(tag, "--tag")]
    argv += ["--build-arg", f"UID={uid}", "--build-arg", f"GID={gid}"]
    if base is not None:
        argv += ["--build-arg", f"BASE={check_image_ref(base, '--base')}"]
    if extra_ca_pem:
        argv += ["--build-arg", f"EXTRA_CA_CERTS={extra_ca_pem}"]
    if isolation is not None:
        if engine.flavour != "podman":
            raise UsageError(
                "--isolation is a podman option (docker's --isolation is for Windows containers)",
                fix="drop --isolation, or use --engine podman",
            )
        if isolation not in ISOLATIONS:
            raise UsageError(f"unknown isolation '{isolation}'", fix=f"use one of {', '.join(ISOLATIONS)}")
        argv += ["--isolation", isolation]
    argv.append(str(context))
    return argv


def user_mapping(engine: Engine, host_uid: int, host_gid: int) -> list[str]:
    """Flags that make files written in /workspace belong to the host user (see the module doc)."""
    if engine.flavour == "podman" and engine.rootless:
        return ["--userns=keep-id"]
    if engine.rootless:
        return ["-e", "HOST_UID=0", "-e", "HOST_GID=0"]
    return ["-e", f"HOST_UID={host_uid}", "-e", f"HOST_GID={host_gid}"]


def gpu_flags(engine: Engine) -> list[str]:
    """All GPUs: docker's --gpus (NVIDIA Container Toolkit); podman through CDI (nvidia-ctk cdi generate)."""
    if engine.flavour == "podman":
        return ["--device", "nvidia.com/gpu=all"]
    return ["--gpus", "all"]


def _mount(host: Path, target: str) -> list[str]:
    # -v splits on ':'; such a path would be mounted somewhere else than asked.
    if ":" in str(host):
        raise UsageError(f"cannot mount {host}: the path contains ':'", fix="use a folder whose path has no ':'")
    return ["-v", f"{host}:{target}"]


def run_command(
    engine: Engine,
    *,
    image: str,
    workspace: Path,
    ccache_dir: Path,
    host_uid: int,
    host_gid: int,
    gpus: bool = True,
    tty: bool = False,
    args: Sequence[str] = (),
) -> list[str]:
    """`<engine> run` of the image with the workspace and ccache folders mounted; `args` go to its entrypoint."""
    argv = [engine.program, "run", "--rm", "-i"]
    if tty:
        argv.append("-t")
    if gpus:
        argv += gpu_flags(engine)
    if engine.flavour == "podman":
        # SELinux hosts would deny the container its bind mounts (and the GPU device nodes).
        argv += ["--security-opt", "label=disable"]
    argv += [f"--shm-size={SHM_SIZE}"]
    argv += user_mapping(engine, host_uid, host_gid)
    argv += _mount(workspace, CONTAINER_WORKSPACE) + _mount(ccache_dir, CONTAINER_CCACHE)
    argv.append(check_image_ref(image, "--tag"))
    argv += list(args)
    return argv


def default_ccache_dir(environ: Mapping[str, str], home: Path) -> Path:
    """The host folder mounted as the container's ccache: kept apart from the host's own ccache."""
    cache_home = environ.get("XDG_CACHE_HOME", "")
    base = Path(cache_home) if cache_home and Path(cache_home).is_absolute() else home / ".cache"
    return base / "tritondev" / "ccache"


def read_ca_certs(paths: Sequence[Path]) -> str | None:
    """The PEM text of --ca-cert files, checked to hold certificates (and nothing private)."""
    texts = []
    for path in paths:
        try:
            text = read_regular(path, limit=1 << 20).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read --ca-cert {path}: {exc}", fix="give a PEM file of CA certificates") from None
        if "-----BEGIN CERTIFICATE-----" not in text or "PRIVATE KEY" in text:
            raise UsageError(
                f"--ca-cert {path} is not a PEM file of certificates",
                fix="give a PEM file holding only '-----BEGIN CERTIFICATE-----' blocks (never a private key)",
            )
        texts.append(text.strip())
    return "\n".join(texts) if texts else None


# -- asking the machine and running the plans ---------------------------------------------------
# Everything above is pure; below, read-only probes and the engine itself, through the runner.
