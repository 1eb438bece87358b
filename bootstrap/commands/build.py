"""`tritondev build`: incremental rebuild of the workspace's Triton (and reinstall when needed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Target = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--target", help="Build only this ninja target (e.g. triton-opt, triton-llvm-opt)."),
]


@options.command("workspace", "sanitize", "distcc", "dry_run", "json", "verbose", writes_logs=True)
def build(ctx: AppContext, target: Target = None) -> None:
    """Rebuild Triton after editing it: ninja in setup's Triton build folder.

    pip install runs again only when the install is out of date (new commit, setup.py or pyproject.toml changed). Needs a finished `tritondev setup` in the workspace.

    Exit codes: 0 ok, 2 no setup yet or unknown target, 3 distcc asked for and no host usable, 4 the build failed (log path shown), 6 workspace locked.
    """  # noqa: E501
    from bootstrap.core import ui
    from bootstrap.pipeline.setup.api import run_build

    ctx = ctx.with_runner(ctx.runner.quiet(ctx.json))
    if not ctx.workspace.state.is_dir():
        # Said before the lock, which would create the workspace (a typo in --workspace included).
        from bootstrap.core.errors import UsageError

        raise UsageError(f"no finished `tritondev setup` in workspace {ctx.workspace.root}",
                         fix="run `tritondev setup` first")
    with ctx.changing("build"):
        result = run_build(ctx, target, ui.err())
    if ctx.json:
        ui.emit_json(result.to_json())
        return
    out = ui.out()
    for line in result.summary:
        out.print(line, markup=False)  # paths and messages: text, never markup


def register(app: typer.Typer) -> None:
    app.command("build")(build)
