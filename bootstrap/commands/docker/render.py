"""What `docker build` and `docker run` show: the engine and image tag, as text or one JSON document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.docker.run import DockerResult


# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Engine = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--engine", help="docker or podman (default: docker if installed, else podman)."),
]


Tag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--tag", help="Image name:tag (default: tritondev:<version>)."),
]


@dataclass(frozen=True)
class ImageBuilt(Outcome):
    """The image built (or the plan of it, under --dry-run), and how to start it."""

    result: DockerResult

    def to_json(self) -> dict[str, object]:
        return self.result.to_json()

    def render(self) -> None:
        from bootstrap.core import ui

        if not self.result.dry_run:
            ui.info(f"built {self.result.image}; start it with: tritondev docker run --tag {self.result.image}")


@dataclass(frozen=True)
class ContainerRan(Outcome):
    """The container's run: its output was on the terminal; its exit status is passed through."""

    result: DockerResult

    def to_json(self) -> dict[str, object]:
        return self.result.to_json()

    def render(self) -> None:
        return None

    @property
    def exit_code(self) -> int:
        return self.result.returncode
