"""What `docker build` and `docker run` print: the engine and image tag, as text or one JSON document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from bootstrap.docker.run import DockerOutcome


# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Engine = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--engine", help="docker or podman (default: docker if installed, else podman)."),
]


Tag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--tag", help="Image name:tag (default: tritondev:<version>)."),
]


def report(outcome: DockerOutcome, json: bool, done: str | None = None) -> None:
    """The outcome as the one JSON document, or `done` said once a real run finished."""
    from bootstrap.core import ui

    if json:
        ui.emit_json(outcome.to_json())
    elif done and not outcome.dry_run:
        ui.info(done)
