"""`tritondev config show`: every setting, its value, and where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


@options.command("workspace", "python", "json")
def show(ctx: AppContext) -> None:
    """Print every setting with its value and source (default, workspace, file, env, cli). Secrets are masked.

    A setting left to its default shows what would be used: the interpreter, the job counts.
    """
    from bootstrap.core import ui
    from bootstrap.core.settings import describe

    rows = describe(ctx.settings)
    for row in rows:
        row.update(_in_use(ctx, row))
    if ctx.json:
        keys = ("value", "source", "env", "effective", "note")
        ui.emit_json({"workspace": str(ctx.workspace.root),
                      "settings": {row["name"]: {k: row[k] for k in keys} for row in rows}})
        return
    console = ui.out()
    if not console.is_terminal or _table_width(rows) > console.width:
        # A pipe, a file, or a terminal too narrow for each value on one line: one plain line per
        # setting, so that nothing a user may copy is cut or broken over lines.
        console.print(f"# tritondev settings (workspace {ctx.workspace.root})", markup=False)
        for row in rows:
            note = f"; {row['note']}" if row["note"] else ""
            value = _shown(row)
            console.print(f"{row['name']} ={' ' + value if value else ''}  ({row['source']}, {row['env']}{note})",
                          markup=False)
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"tritondev settings (workspace {escape(str(ctx.workspace.root))})", title_justify="left")
    table.add_column("setting", no_wrap=True)
    for column in ("value", "source", "env var"):
        table.add_column(column, overflow="fold")  # a value is never cut, whatever happens to the width
    for row in rows:
        value = escape(_shown(row)) + (f"\n[dim]{escape(row['note'])}[/dim]" if row["note"] else "")
        table.add_row(row["name"], value, escape(row["source"]), row["env"])
    console.print(table)


def _table_width(rows: list[dict[str, Any]]) -> int:
    """Columns a table needs to show every name, value, source and env var on one line."""
    cells = [(row["name"], _shown(row), row["source"], row["env"]) for row in rows]
    return sum(max(len(str(c[i])) for c in cells) for i in range(4)) + 3 * 4 + 1  # padding and borders


def _shown(row: dict[str, Any]) -> str:
    if row["value"] is not None:
        return str(row["value"])
    return "" if row["effective"] is None else str(row["effective"])


def _in_use(ctx: AppContext, row: dict[str, Any]) -> dict[str, Any]:
    """What a setting left to its default comes to here: {"effective": value or None, "note": words}."""
    name = row["name"]
    if name == "python":
        return _python_in_use(ctx)
    if name in ("jobs", "link_jobs") and row["value"] is None:
        from bootstrap.pipeline.host.jobs import size_for_settings

        jobs = size_for_settings(ctx.settings)
        return {"effective": jobs.compile if name == "jobs" else jobs.link, "note": f"sized here: {jobs.reason}"}
    if row["value"] is None:
        from bootstrap.core.settings_table import BY_NAME

        default = BY_NAME[name].shown_default
        return {"effective": None, "note": f"not set: {default}" if default else "not set"}
    return {"effective": row["value"], "note": ""}


def _python_in_use(ctx: AppContext) -> dict[str, Any]:
    """The interpreter setup installs into, and the one the reading commands would read when that differs."""

    from bootstrap.core.interpreter import WORKSPACE_VENV, path_python

    executable, origin = ctx.target_choice()
    if origin != WORKSPACE_VENV:
        return {"effective": str(executable), "note": f"chosen by {origin}"}
    if executable.exists():
        return {"effective": str(executable), "note": "the workspace venv"}
    on_path = path_python()
    readers = (f"doctor, verify, compile, cache, env and run read {on_path} (the first python3 on PATH) until then"
               if on_path else "no python3 on PATH for doctor, verify and compile until then")
    return {"effective": str(executable), "note": f"the workspace venv setup creates; {readers}"}


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Show tritondev's settings.", no_args_is_help=True)
    config_app.command("show")(show)
    app.add_typer(config_app, name="config")
