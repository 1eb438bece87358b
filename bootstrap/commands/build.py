"""`tritondev build`: incremental rebuild of the workspace's Triton (and reinstall when needed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.pipeline.setup.api import BuildResult

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Target = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--target", help="Build only this ninja target (e.g. triton-opt, triton-llvm-opt)."),
]


@options.command(
    "workspace", "sanitize", "distcc", "dry_run", "json", "verbose", writes_logs=True, lock="exclusive", echo="text"
)
def build(ctx: AppContext, target: Target = None) -> BuildOutcome:
    """Rebuild Triton after editing it: ninja in setup's Triton build folder.

    pip install runs again only when the install is out of date (new commit, setup.py or pyproject.toml changed). Needs a finished `tritondev setup` in the workspace.

    Exit codes: 0 ok, 2 no setup yet or unknown target, 3 distcc asked for and no host usable, 4 the build failed (log path shown), 6 workspace locked.
    """  # noqa: E501
    from bootstrap.core import ui
    from bootstrap.pipeline.setup.api import build_workspace

    return BuildOutcome(build_workspace(ctx, target, ui.err()))


@dataclass(frozen=True)
class BuildOutcome(Outcome):
    """What the rebuild did: its summary lines, or the JSON document."""

    result: BuildResult

    def to_json(self) -> dict[str, object]:
        return self.result.to_json()

    def render(self) -> None:
        from bootstrap.core import ui

        out = ui.out()
        for line in self.result.summary:
            out.print(line, markup=False)  # paths and messages: text, never markup


def register(app: typer.Typer) -> None:
    app.command("build")(build)
