"""The docker/podman commands of the plan run: the engine detected, the image built, the container run."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import bootstrap
from bootstrap.core import ui
from bootstrap.core.errors import CommandFailed, ConfigError, UsageError
from bootstrap.core.process.runner import PlannedCommand
from bootstrap.core.redact import redact
from bootstrap.docker.plan import (
    DEFAULT_BASE,
    Engine,
    build_command,
    check_context,
    check_ids,
    default_ccache_dir,
    default_tag,
    docker_is_rootless,
    find_engine,
    flavour_of,
    image_ids,
    read_ca_certs,
    run_command,
    source_checkout,
)

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.process.runner import Runner


def detect_engine(runner: Runner, requested: str | None, *, host_uid: int, probe_rootless: bool) -> Engine:
    """The engine to use and its flavour; with `probe_rootless`, whether it runs without root."""
    program = find_engine(requested, runner.which)
    if runner.which(program) is None:
        # Named with --engine but not installed: enough to show a plan; running it fails in the runner.
        return Engine(program, program, rootless=program == "podman" and host_uid != 0)
    version = runner.capture([program, "--version"], step="docker-engine", check=False, timeout=60)
    flavour = flavour_of(program, version.stdout + version.stderr)
    if flavour == "podman":
        return Engine(flavour, program, rootless=host_uid != 0)
    rootless = False
    if probe_rootless:
        info = runner.capture(
            [program, "info", "--format", "{{json .SecurityOptions}}"],
            step="docker-engine",
            check=False,
            timeout=60,
        )
        rootless = info.ok and docker_is_rootless(info.stdout)
    return Engine(flavour, program, rootless=rootless)


@dataclass(frozen=True)
class DockerResult:
    """What `tritondev docker build|run` did (or, under --dry-run, would do)."""

    engine: Engine
    image: str
    argv: tuple[str, ...]
    dry_run: bool
    returncode: int = 0
    created: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
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
) -> DockerResult:
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
    result = runner.stream(
        argv,
        step="docker-build",
        on_line=on_line,
        fix=f"see the engine's messages above; a different base image is chosen with --base (default {DEFAULT_BASE})",
    )
    return DockerResult(engine, tag, tuple(argv), result.dry_run)


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
) -> DockerResult:
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
    if not runner.dry_run and not runner.silent and not runner.verbose:
        # run_attached shows the command only with -v; what is started in the user's name is always shown.

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
    return DockerResult(engine, image, tuple(argv), result.dry_run, result.returncode, folders)


# `docker run` and `podman run` exit with 125 when the engine itself fails.
ENGINE_FAILED = 125


@dataclass(frozen=True)
class ImageRequest:
    """`tritondev docker build`'s options; None: the default."""

    engine: str | None = None
    base: str | None = None
    tag: str | None = None
    isolation: str | None = None
    uid: int | None = None
    gid: int | None = None
    context: Path | None = None  # a tritondev source checkout (default: the one this tritondev runs from)
    ca_certs: tuple[Path, ...] = ()


def docker_build(ctx: AppContext, request: ImageRequest) -> DockerResult:
    """The development image built from a tritondev checkout, with a user of the caller's UID/GID; bad
    input (no checkout, bad ids) is said before the engine is even looked for."""
    package_dir = Path(bootstrap.__file__).parent
    source = request.context.absolute() if request.context is not None else source_checkout(package_dir)
    if source is None:
        raise UsageError(
            "this tritondev is not installed from a source checkout, so there is nothing to build the image from",
            fix="pass --context <tritondev checkout>",
        )
    own_uid, own_gid = image_ids(os.getuid(), os.getgid())
    uid = own_uid if request.uid is None else request.uid
    gid = own_gid if request.gid is None else request.gid
    check_ids(uid, gid)
    found = detect_engine(ctx.runner, request.engine, host_uid=os.getuid(), probe_rootless=False)
    return build_image(
        ctx.runner,
        engine=found,
        context=source,
        tag=request.tag or default_tag(),
        uid=uid,
        gid=gid,
        base=request.base,
        isolation=request.isolation,
        ca_certs=request.ca_certs,
        on_line=ui.ChildOutput("stderr").line,  # the engine's output: progress, never part of --json output
    )


@dataclass(frozen=True)
class ContainerRequest:
    """`tritondev docker run`'s options; None: the default."""

    args: tuple[str, ...] = ()  # for the image's entrypoint; none: an interactive shell
    engine: str | None = None
    tag: str | None = None
    gpus: bool = True
    ccache_dir: Path | None = None


def docker_run(ctx: AppContext, request: ContainerRequest) -> DockerResult:
    """The image run with the workspace at /workspace and a ccache folder at /ccache; with --json the
    container's output goes to stderr (stdout holds the one document), and it gets no terminal."""
    found = detect_engine(ctx.runner, request.engine, host_uid=os.getuid(), probe_rootless=True)
    ccache_dir = (
        request.ccache_dir.absolute() if request.ccache_dir is not None else default_ccache_dir(os.environ, Path.home())
    )
    return run_container(
        ctx.runner,
        engine=found,
        image=request.tag or default_tag(),
        workspace=ctx.workspace.root,
        ccache_dir=ccache_dir,
        host_uid=os.getuid(),
        host_gid=os.getgid(),
        gpus=request.gpus,
        tty=not ctx.json and sys.stdin.isatty() and sys.stdout.isatty(),
        args=request.args,
        on_stdout=ui.ChildOutput("stderr").text if ctx.json else None,
    )
