"""`tritondev config show`: every setting, its value, and where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


@options.command("workspace", "python", "json")
def show(ctx: AppContext) -> None:
    """Print every setting with its value and source (default, file, env, cli). Secrets are masked."""
    from bootstrap.core import ui
    from bootstrap.core.settings import describe

    rows = describe(ctx.settings)
    if ctx.json:
        ui.emit_json(
            {
                "workspace": str(ctx.workspace.root),
                "settings": {row["name"]: {k: row[k] for k in ("value", "source", "env")} for row in rows},
            }
        )
        return
    from rich.table import Table

    table = Table(title=ui.cell(f"tritondev settings (workspace {ctx.workspace.root})"), title_justify="left")
    for column in ("setting", "value", "source", "env var"):
        table.add_column(column)
    for row in rows:
        table.add_row(*(ui.cell(row[key]) for key in ("name", "value", "source", "env")))
    ui.out().print(table)


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Show tritondev's settings.", no_args_is_help=True)
    config_app.command("show")(show)
    app.add_typer(config_app, name="config")
