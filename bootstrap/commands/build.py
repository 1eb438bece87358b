"""`tritondev build`: incremental rebuild of the workspace's Triton (and reinstall when needed)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from bootstrap.commands import options


def register(app: typer.Typer) -> None:
    @app.command("build")
    def build(
        target: Annotated[
            Optional[str],  # noqa: UP045
            typer.Option("--target", help="Build only this ninja target (e.g. triton-opt, triton-llvm-opt).",
                         show_default=False),
        ] = None,
        workspace: options.Workspace = None,
        dry_run: options.DryRun = False,
        json: options.Json = False,
        verbose: options.Verbose = False,
    ) -> None:
        """Rebuild Triton after editing it: ninja in setup's Triton build folder.

        pip install runs again only when the install is out of date (new commit, setup.py or pyproject.toml changed).
        Needs a finished `tritondev setup` in the workspace.

        Exit codes: 0 ok, 2 no setup yet or unknown target, 4 the build failed (log path shown), 6 workspace locked.
        """
        from bootstrap.core import ui
        from bootstrap.core.context import make_context
        from bootstrap.pipeline.build import run_build

        ctx = make_context(options.given(workspace=workspace), json=json, dry_run=dry_run, verbose=verbose,
                           logs=not dry_run)
        ctx.runner.quiet = json
        if not ctx.workspace.state.is_dir():
            # Said before the lock, which would create the workspace (a typo in --workspace included).
            from bootstrap.core.errors import UsageError

            raise UsageError(f"no finished `tritondev setup` in workspace {ctx.workspace.root}",
                             fix="run `tritondev setup` first")
        if dry_run:
            result = run_build(ctx, target, ui.err())
        else:
            with ctx.workspace.lock("build"):
                result = run_build(ctx, target, ui.err())
        if json:
            ui.emit_json(result)
            return
        out = ui.out()
        summary = result.get("summary", [])
        for line in summary if isinstance(summary, list) else []:
            out.print(str(line))
