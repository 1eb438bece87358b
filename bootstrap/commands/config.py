"""`tritondev config show`: every setting, its value, and where it came from."""

from __future__ import annotations

import typer

from bootstrap.commands import options


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Show tritondev's settings.", no_args_is_help=True)
    app.add_typer(config_app, name="config")

    @config_app.command("show")
    def show(
        workspace: options.Workspace = None,
        python: options.Python = None,
        json: options.Json = False,
    ) -> None:
        """Print every setting with its value and source (default, file, env, cli). Secrets are masked."""
        from bootstrap.core.context import make_context
        from bootstrap.core.settings import describe

        ctx = make_context(options.given(workspace=workspace, python=python), json=json, logs=False)
        rows = describe(ctx.settings)
        if json:
            from bootstrap.core import ui

            ui.emit_json(
                {
                    "workspace": str(ctx.workspace.root),
                    "settings": {row["name"]: {k: row[k] for k in ("value", "source", "env")} for row in rows},
                }
            )
            return
        from rich.table import Table

        from bootstrap.core import ui

        table = Table(title=f"tritondev settings (workspace {ctx.workspace.root})", title_justify="left")
        for column in ("setting", "value", "source", "env var"):
            table.add_column(column)
        for row in rows:
            value = "" if row["value"] is None else str(row["value"])
            table.add_row(row["name"], value, row["source"], row["env"])
        ui.out().print(table)
