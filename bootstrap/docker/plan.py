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
from typing import TYPE_CHECKING

from bootstrap import __version__
from bootstrap.core.errors import CommandFailed, ConfigError, ToolMissing, UsageError
from bootstrap.core.fsutil import read_regular

if TYPE_CHECKING:
    from bootstrap.core.runner import Runner

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


def detect_engine(runner: Runner, requested: str | None, *, host_uid: int, probe_rootless: bool) -> Engine:
    """The engine to use and its flavour; with `probe_rootless`, whether it runs without root."""
    program = find_engine(requested, runner.which)
    if runner.which(program) is None:
        # Named with --engine but not installed: enough to show a plan; running it fails in the runner.
        return Engine(program, program, rootless=program == "podman" and host_uid != 0)
    version = runner.run([program, "--version"], step="docker-engine", probe=True, check=False, timeout=60)
    flavour = flavour_of(program, version.stdout + version.stderr)
    if flavour == "podman":
        return Engine(flavour, program, rootless=host_uid != 0)
    rootless = False
    if probe_rootless:
        info = runner.run(
            [program, "info", "--format", "{{json .SecurityOptions}}"],
            step="docker-engine",
            probe=True,
            check=False,
            timeout=60,
        )
        rootless = info.ok and docker_is_rootless(info.stdout)
    return Engine(flavour, program, rootless=rootless)


@dataclass(frozen=True)
class Outcome:
    """What `tritondev docker build|run` did (or, under --dry-run, would do)."""

    engine: Engine
    image: str
    argv: tuple[str, ...]
    dry_run: bool
    returncode: int = 0
    created: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        from bootstrap.core.redact import redact
        from bootstrap.core.runner import PlannedCommand

        return {
            "engine": self.engine.to_json(),
            "image": self.image,
            "argv": [redact(a) for a in self.argv],
            "command": PlannedCommand(self.argv, None, (), "docker").render(),
            "dry_run": self.dry_run,
            "create": list(self.created),
            "returncode": self.returncode,
        }


def build_image(
    runner: Runner,
    *,
    engine: Engine,
    context: Path,
    tag: str,
    uid: int,
    gid: int,
    base: str | None,
    isolation: str | None,
    ca_certs: Sequence[Path],
    on_line: Callable[[str], None] | None,
) -> Outcome:
    """Build the image; the engine's output goes to `on_line` and to the step's log."""
    argv = build_command(
        engine,
        context=check_context(context),
        tag=tag,
        uid=uid,
        gid=gid,
        base=base,
        isolation=isolation,
        extra_ca_pem=read_ca_certs(ca_certs),
    )
    result = runner.run(
        argv,
        step="docker-build",
        stream=True,
        on_line=on_line,
        fix=f"see the engine's messages above; a different base image is chosen with --base (default {DEFAULT_BASE})",
    )
    return Outcome(engine, tag, tuple(argv), result.dry_run)


def _make_folder(path: Path, what: str) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"the {what} {path} exists and is not a folder", fix=f"choose another {what}") from None
    except OSError as exc:
        raise ConfigError(f"cannot create the {what} {path}: {exc.strerror}", fix=f"choose another {what}") from None


def run_container(
    runner: Runner,
    *,
    engine: Engine,
    image: str,
    workspace: Path,
    ccache_dir: Path,
    host_uid: int,
    host_gid: int,
    gpus: bool,
    tty: bool,
    args: Sequence[str],
    on_stdout: Callable[[str], None] | None = None,
) -> Outcome:
    """Run the image attached to this terminal; returns the container's exit status.

    The host folders are created first (by this user), so that an engine never creates them as root.
    Exit status 125 is the engine's own failure (no such image, no daemon, no GPU runtime).
    """
    argv = run_command(
        engine,
        image=image,
        workspace=workspace,
        ccache_dir=ccache_dir,
        host_uid=host_uid,
        host_gid=host_gid,
        gpus=gpus,
        tty=tty,
        args=args,
    )
    folders = tuple(str(p) for p in (workspace, ccache_dir) if not p.is_dir())
    if not runner.dry_run:
        _make_folder(workspace, "workspace")
        _make_folder(ccache_dir, "ccache folder")
    if not runner.dry_run and not runner.quiet and not runner.verbose:
        # run_attached shows the command only with -v; what is started in the user's name is always shown.
        from bootstrap.core.runner import PlannedCommand

        runner.echo(f"$ {PlannedCommand(tuple(argv), None, (), 'docker-run').render()}")
    result = runner.run_attached(argv, step="docker-run", on_stdout=on_stdout)
    if result.returncode == ENGINE_FAILED:
        raise CommandFailed(
            argv,
            result.returncode,
            None,
            [],
            fix=f"build the image first (tritondev docker build --tag {image}); with GPUs the host needs the "
            "NVIDIA Container Toolkit (docker) or its CDI spec (podman: nvidia-ctk cdi generate), else use --no-gpus",
        )
    return Outcome(engine, image, tuple(argv), result.dry_run, result.returncode, folders)


# `docker run` and `podman run` exit with 125 when the engine itself fails.
ENGINE_FAILED = 125
