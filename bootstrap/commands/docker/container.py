"""`tritondev docker run`: the image with the workspace at /workspace and a ccache folder at /ccache."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.docker.render import Engine, Tag, report

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

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
    ctx: AppContext, args: Args = None, engine: Engine = None, tag: Tag = None, gpus: Gpus = True,
    ccache_dir: CcacheDir = None,
) -> None:
    """Run the image with the workspace at /workspace and a ccache folder at /ccache.

    Files the container writes into the workspace belong to you.

    Exit status: the container's, except 4 when the engine itself fails (no image, no GPU runtime).

    With --json the container's output goes to stderr, and one JSON document to stdout.
    """
    import os

    from bootstrap.core import ui
    from bootstrap.docker import plan as dockerplan
    from bootstrap.docker.run import detect_engine, run_container

    found = detect_engine(ctx.runner, engine, host_uid=os.getuid(), probe_rootless=True)
    outcome = run_container(
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
        tty=not ctx.json and sys.stdin.isatty() and sys.stdout.isatty(),
        args=args or [],
        on_stdout=ui.ChildOutput("stderr").text if ctx.json else None,
    )
    report(outcome, ctx.json)
    if outcome.returncode:
        raise typer.Exit(outcome.returncode)
