"""`tritondev docker build`: the development image, built from a tritondev source checkout."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.docker.render import Engine, Tag

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.outcome import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Base = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--base",
        help="Base image, Debian or Ubuntu based (default: the Dockerfile's NVIDIA CUDA devel image).",
    ),
]
Isolation = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--isolation", help="podman only: oci, rootless or chroot."),
]
Uid = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--uid", help="UID of the image's user (default: yours; 1000 for root)."),
]
Gid = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--gid", help="GID of the image's user (default: yours; 1000 for root)."),
]
Context = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--context",
        help="tritondev source checkout to build from (default: the one this tritondev runs from).",
    ),
]
CaCert = Annotated[
    Optional[list[Path]],  # noqa: UP045
    typer.Option(
        "--ca-cert",
        help="PEM file of extra CA certificates the image trusts (a TLS-inspecting proxy); repeatable.",
    ),
]


# Only a real build writes its log into the workspace; --dry-run leaves the disk alone.
@options.command("workspace", "dry_run", "json", "verbose", writes_logs=True)
def build(
    ctx: AppContext,
    engine: Engine = None,
    base: Base = None,
    tag: Tag = None,
    isolation: Isolation = None,
    uid: Uid = None,
    gid: Gid = None,
    context: Context = None,
    ca_cert: CaCert = None,
) -> Outcome:
    """Build the image: toolchain, tritondev, and a user 'triton' with your UID/GID.

    The build context is a tritondev checkout. The log goes to <workspace>/logs/docker-build.log.
    """
    from bootstrap.commands.docker.render import ImageBuilt
    from bootstrap.docker.run import ImageRequest, docker_build

    request = ImageRequest(engine, base, tag, isolation, uid, gid, context, tuple(ca_cert or ()))
    return ImageBuilt(docker_build(ctx, request))
