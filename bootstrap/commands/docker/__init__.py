"""`tritondev docker build|run`: the development image (docker/Dockerfile) through docker or podman.

image.py: build; container.py: run. Both report through `report` here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from bootstrap.docker.plan import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Engine = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--engine", help="docker or podman (default: docker if installed, else podman)."),
]
Tag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--tag", help="Image name:tag (default: tritondev:<version>)."),
]


def report(outcome: Outcome, json: bool, done: str | None = None) -> None:
    """The outcome as the one JSON document, or `done` said once a real run finished."""
    from bootstrap.core import ui

    if json:
        ui.emit_json(outcome.to_json())
    elif done and not outcome.dry_run:
        ui.info(done)


def register(app: typer.Typer) -> None:
    from bootstrap.commands.docker import container, image

    docker_app = typer.Typer(
        help="Build and run the Triton development image (docker or podman) with tritondev as its entrypoint.",
        no_args_is_help=True,
    )
    docker_app.command("build")(image.build)
    # Everything after the image's options belongs to the container: `docker run -- setup --jobs 8`.
    docker_app.command("run", context_settings={"allow_interspersed_args": False})(container.run)
    app.add_typer(docker_app, name="docker")
