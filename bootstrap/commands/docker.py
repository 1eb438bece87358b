"""`tritondev docker build|run`: the development image (docker/Dockerfile) through docker or podman."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.docker.plan import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Engine = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--engine", help="docker or podman (default: docker if installed, else podman).", show_default=False),
]
Tag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--tag", help="Image name:tag (default: tritondev:<version>).", show_default=False),
]


def _line_to_stderr(line: str) -> None:
    """The engine's build output, line by line: progress for the user, never part of --json output."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _text_to_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _render(outcome: Outcome, json: bool, done: str | None = None) -> None:
    from bootstrap.core import ui

    if json:
        ui.emit_json(outcome.to_json())
    elif done and not outcome.dry_run:
        ui.info(done)


def register(app: typer.Typer) -> None:
    docker_app = typer.Typer(
        help="Build and run the Triton development image (docker or podman) with tritondev as its entrypoint.",
        no_args_is_help=True,
    )
    app.add_typer(docker_app, name="docker")

    @docker_app.command("build")
    def build(
        engine: Engine = None,
        base: Annotated[
            Optional[str],  # noqa: UP045
            typer.Option(
                "--base",
                help="Base image, Debian or Ubuntu based (default: the Dockerfile's NVIDIA CUDA devel image).",
                show_default=False,
            ),
        ] = None,
        tag: Tag = None,
        isolation: Annotated[
            Optional[str],  # noqa: UP045
            typer.Option("--isolation", help="podman only: oci, rootless or chroot.", show_default=False),
        ] = None,
        uid: Annotated[
            Optional[int],  # noqa: UP045
            typer.Option("--uid", help="UID of the image's user (default: yours; 1000 for root).", show_default=False),
        ] = None,
        gid: Annotated[
            Optional[int],  # noqa: UP045
            typer.Option("--gid", help="GID of the image's user (default: yours; 1000 for root).", show_default=False),
        ] = None,
        context: Annotated[
            Optional[Path],  # noqa: UP045
            typer.Option(
                "--context",
                help="tritondev source checkout to build from (default: the one this tritondev runs from).",
                show_default=False,
            ),
        ] = None,
        ca_cert: Annotated[
            Optional[list[Path]],  # noqa: UP045
            typer.Option(
                "--ca-cert",
                help="PEM file of extra CA certificates the image trusts (a TLS-inspecting proxy); repeatable.",
                show_default=False,
            ),
        ] = None,
        workspace: options.Workspace = None,
        dry_run: options.DryRun = False,
        json: options.Json = False,
        verbose: options.Verbose = False,
    ) -> None:
        """Build the image: toolchain, tritondev, and a user 'triton' with your UID/GID.

        The build context is a tritondev checkout. The log goes to <workspace>/logs/docker-build.log.
        """
        import os

        import bootstrap
        from bootstrap.core.context import make_context
        from bootstrap.core.errors import UsageError
        from bootstrap.docker import plan as dockerplan

        # Only a real build writes its log into the workspace; --dry-run leaves the disk alone.
        ctx = make_context(
            options.given(workspace=workspace), json=json, dry_run=dry_run, verbose=verbose, logs=not dry_run
        )
        package_dir = Path(bootstrap.__file__).parent
        source = context.absolute() if context is not None else dockerplan.source_checkout(package_dir)
        if source is None:
            raise UsageError(
                "this tritondev is not installed from a source checkout, so there is nothing to build the image from",
                fix="pass --context <tritondev checkout>",
            )
        own_uid, own_gid = dockerplan.image_ids(os.getuid(), os.getgid())
        found = dockerplan.detect_engine(ctx.runner, engine, host_uid=os.getuid(), probe_rootless=False)
        outcome = dockerplan.build_image(
            ctx.runner,
            engine=found,
            context=source,
            tag=tag or dockerplan.default_tag(),
            uid=own_uid if uid is None else uid,
            gid=own_gid if gid is None else gid,
            base=base,
            isolation=isolation,
            ca_certs=ca_cert or [],
            on_line=_line_to_stderr,
        )
        _render(outcome, json, f"built {outcome.image}; start it with: tritondev docker run --tag {outcome.image}")

    @docker_app.command(
        "run",
        context_settings={"allow_interspersed_args": False},
    )
    def run(
        args: Annotated[
            Optional[list[str]],  # noqa: UP045
            typer.Argument(
                help="Arguments for the image's entrypoint, after `--`: a tritondev command (setup ...) or a "
                "program (bash ...). None: an interactive shell.",
                show_default=False,
            ),
        ] = None,
        engine: Engine = None,
        tag: Tag = None,
        gpus: Annotated[
            bool, typer.Option("--gpus/--no-gpus", help="Give the container every NVIDIA GPU.")
        ] = True,
        ccache_dir: Annotated[
            Optional[Path],  # noqa: UP045
            typer.Option(
                "--ccache-dir",
                help="Host folder mounted at /ccache (default: ~/.cache/tritondev/ccache).",
                show_default=False,
            ),
        ] = None,
        workspace: options.Workspace = None,
        dry_run: options.DryRun = False,
        json: options.Json = False,
        verbose: options.Verbose = False,
    ) -> None:
        """Run the image with the workspace at /workspace and a ccache folder at /ccache.

        Files the container writes into the workspace belong to you.

        Exit status: the container's, except 4 when the engine itself fails (no image, no GPU runtime).

        With --json the container's output goes to stderr, and one JSON document to stdout.
        """
        import os

        from bootstrap.core.context import make_context
        from bootstrap.docker import plan as dockerplan

        ctx = make_context(options.given(workspace=workspace), json=json, dry_run=dry_run, verbose=verbose, logs=False)
        found = dockerplan.detect_engine(ctx.runner, engine, host_uid=os.getuid(), probe_rootless=True)
        outcome = dockerplan.run_container(
            ctx.runner,
            engine=found,
            image=tag or dockerplan.default_tag(),
            workspace=ctx.workspace.root,
            ccache_dir=ccache_dir.absolute()
            if ccache_dir is not None
            else dockerplan.default_ccache_dir(os.environ, Path.home()),
            host_uid=os.getuid(),
            host_gid=os.getgid(),
            gpus=gpus,
            tty=not json and sys.stdin.isatty() and sys.stdout.isatty(),
            args=args or [],
            on_stdout=_text_to_stderr if json else None,
        )
        _render(outcome, json)
        if outcome.returncode:
            raise typer.Exit(outcome.returncode)
