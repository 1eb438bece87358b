"""`tritondev docker run`: the image with the workspace at /workspace and a ccache folder at /ccache."""

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
Args = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Argument(
        help="Arguments for the image's entrypoint, after `--`: a tritondev command (setup ...) or a "
        "program (bash ...). None: an interactive shell.",
    ),
]
Gpus = Annotated[bool, options.flag("--gpus/--no-gpus", help="Give the container every NVIDIA GPU (default: on).")]
CcacheDir = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--ccache-dir", help="Host folder mounted at /ccache (default: ~/.cache/tritondev/ccache)."),
]


@options.command("workspace", "dry_run", "json", "verbose")
def run(
    ctx: AppContext,
    args: Args = None,
    engine: Engine = None,
    tag: Tag = None,
    gpus: Gpus = True,
    ccache_dir: CcacheDir = None,
) -> Outcome:
    """Run the image with the workspace at /workspace and a ccache folder at /ccache.

    Files the container writes into the workspace belong to you.

    Exit status: the container's, except 4 when the engine itself fails (no image, no GPU runtime).

    With --json the container's output goes to stderr, and one JSON document to stdout.
    """
    from bootstrap.commands.docker.render import ContainerRan
    from bootstrap.docker.run import ContainerRequest, docker_run

    return ContainerRan(docker_run(ctx, ContainerRequest(tuple(args or ()), engine, tag, gpus, ccache_dir)))
