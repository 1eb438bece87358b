"""`tritondev cache ls|show|clear|prune`: the Triton kernel cache.

listing.py: ls and show; removal.py: clear and prune; render.py: their human output.
"""

from __future__ import annotations

import typer

from bootstrap.commands.cache import listing, removal


def register(app: typer.Typer) -> None:
    cache_app = typer.Typer(
        help="The Triton kernel cache: list, inspect, clear and prune compiled kernels.", no_args_is_help=True
    )
    cache_app.command("ls")(listing.ls)
    cache_app.command("show")(listing.show)
    cache_app.command("clear")(removal.clear)
    cache_app.command("prune")(removal.prune)
    app.add_typer(cache_app, name="cache")
