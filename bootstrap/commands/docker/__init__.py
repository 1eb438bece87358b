"""`tritondev docker build|run`: the development image (docker/Dockerfile) through docker or podman.

image.py: build; container.py: run; render.py: their options in common and what they show.
"""

from __future__ import annotations

import typer


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
