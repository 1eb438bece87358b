"""`tritondev config show`: every setting, its value, and where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.pipeline.host.settings_in_use import SettingInUse


@options.command("workspace", "python", "json")
def show(ctx: AppContext) -> Outcome:
    """Print every setting with its value and source (default, workspace, file, env, cli). Secrets are masked.

    A setting left to its default shows what would be used: the interpreter, the job counts.
    """
    from bootstrap.pipeline.host.settings_in_use import settings_in_use

    return SettingsShown(ctx.workspace.root, tuple(settings_in_use(ctx)))


@dataclass(frozen=True)
class SettingsShown(Outcome):
    """A table on a terminal wide enough for it; else one plain line per setting, nothing cut."""

    workspace: Path
    rows: tuple[SettingInUse, ...]

    def to_json(self) -> dict[str, object]:
        return {"workspace": str(self.workspace), "settings": {r.row.name: r.to_json() for r in self.rows}}

    def render(self) -> None:
        from bootstrap.core import ui

        console = ui.out()
        if not console.is_terminal or self._table_width() > console.width:
            # A pipe, a file, or a terminal too narrow for each value on one line: one plain line per
            # setting, so that nothing a user may copy is cut or broken over lines.
            console.print(f"# tritondev settings (workspace {self.workspace})", markup=False)
            for r in self.rows:
                note = f"; {r.note}" if r.note else ""
                console.print(
                    f"{r.row.name} ={' ' + r.shown if r.shown else ''}  ({r.row.source}, {r.row.env}{note})",
                    markup=False,
                )
            return
        from rich.markup import escape
        from rich.table import Table

        table = Table(title=f"tritondev settings (workspace {escape(str(self.workspace))})", title_justify="left")
        table.add_column("setting", no_wrap=True)
        for column in ("value", "source", "env var"):
            table.add_column(column, overflow="fold")  # a value is never cut, whatever happens to the width
        for r in self.rows:
            value = escape(r.shown) + (f"\n[dim]{escape(r.note)}[/dim]" if r.note else "")
            table.add_row(r.row.name, value, escape(r.row.source), r.row.env)
        console.print(table)

    def _table_width(self) -> int:
        """Columns a table needs to show every name, value, source and env var on one line."""
        cells = [(r.row.name, r.shown, r.row.source, r.row.env) for r in self.rows]
        return sum(max(len(str(c[i])) for c in cells) for i in range(4)) + 3 * 4 + 1  # padding and borders


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Show tritondev's settings.", no_args_is_help=True)
    config_app.command("show")(show)
    app.add_typer(config_app, name="config")
