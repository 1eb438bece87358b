"""`tritondev docker build`: the development image, built from a tritondev source checkout."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.docker.render import Engine, Tag, report

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

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
) -> None:
    """Build the image: toolchain, tritondev, and a user 'triton' with your UID/GID.

    The build context is a tritondev checkout. The log goes to <workspace>/logs/docker-build.log.
    """
    import os

    import bootstrap
    from bootstrap.core import ui
    from bootstrap.core.errors import UsageError
    from bootstrap.docker import plan as dockerplan
    from bootstrap.docker.run import build_image, detect_engine

    package_dir = Path(bootstrap.__file__).parent
    source = context.absolute() if context is not None else dockerplan.source_checkout(package_dir)
    if source is None:
        raise UsageError(
            "this tritondev is not installed from a source checkout, so there is nothing to build the image from",
            fix="pass --context <tritondev checkout>",
        )
    own_uid, own_gid = dockerplan.image_ids(os.getuid(), os.getgid())
    uid, gid = own_uid if uid is None else uid, own_gid if gid is None else gid
    dockerplan.check_ids(uid, gid)  # before the engine is looked for: bad input is exit 2 everywhere
    found = detect_engine(ctx.runner, engine, host_uid=os.getuid(), probe_rootless=False)
    outcome = build_image(
        ctx.runner,
        engine=found,
        context=source,
        tag=tag or dockerplan.default_tag(),
        uid=uid,
        gid=gid,
        base=base,
        isolation=isolation,
        ca_certs=ca_cert or [],
        on_line=ui.ChildOutput("stderr").line,  # the engine's output: progress, never part of --json output
    )
    report(outcome, ctx.json, f"built {outcome.image}; start it with: tritondev docker run --tag {outcome.image}")
