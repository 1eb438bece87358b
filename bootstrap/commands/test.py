"""`tritondev test lit [PATTERN]`: Triton's lit tests from the workspace's build."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

Pattern = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(metavar="PATTERN", help="A test file or folder under test/ (TritonGPU/coalesce.mlir), else a "
                   "regex for lit --filter. Left out: every lit test (ninja check-triton-lit-tests)."),
]


@options.command("workspace", "dry_run", "json", "verbose", writes_logs=True)
def lit(ctx: AppContext, pattern: Pattern = None) -> None:
    """Run Triton's lit tests with the workspace's triton-opt, FileCheck and lit, as `make test-lit` does.

    Without PATTERN: ninja check-triton-lit-tests in setup's Triton build folder. With one: ninja triton-opt, then lit -v <build>/test/PATTERN (or --filter PATTERN). No GPU needed.

    Exit codes: 0 all passed; 1 a test failed; 2 no Triton build; 3 lit missing; 4 the build or lit itself failed.
    """  # noqa: E501
    import os
    import sys

    from bootstrap.core import ui
    from bootstrap.core.errors import CheckFailed, CommandFailed
    from bootstrap.env import littests
    from bootstrap.env.tritonopt import find_build, runtime_env
    from bootstrap.pipeline.state import read_state

    build = find_build(ctx.workspace.root, ctx.workspace.state)
    env = runtime_env(build, os.environ)
    if pattern is None:
        argv = ["ninja", "-C", str(build.build_dir), littests.CHECK_TARGET]
    else:
        _build_triton_opt(ctx)
        state = read_state(ctx.workspace.state)
        program = littests.lit_program(build.build_dir, state.python if state else None)
        argv = [program, *littests.lit_arguments(build.triton_src / "test", build.build_dir, pattern)]
    lines: list[str] = []

    def show(line: str) -> None:
        lines.append(line)
        stream = sys.stderr if ctx.json else sys.stdout
        stream.write(line + "\n")
        stream.flush()

    result = ctx.runner.run(argv, step="lit", check=False, stream=True, on_line=show, env=dict(env))
    summary = littests.parse_summary(lines)
    tests_failed = bool(summary.failed or summary.counts.get("Failed"))
    if ctx.json and (result.returncode == 0 or tests_failed):
        ui.emit_json({"command": argv, "env": env, "build_dir": str(build.build_dir), "dry_run": ctx.dry_run,
                      "returncode": result.returncode, **summary.to_json()})
    if result.returncode == 0:
        return
    if tests_failed:
        count = len(summary.failed) or summary.counts.get("Failed", 0)
        raise CheckFailed(f"{count} lit test(s) failed: {', '.join(summary.failed[:5])}",
                          fix="their output is above; re-run one with `tritondev test lit <its path under test/>`",
                          reported=ctx.json)
    raise CommandFailed(argv, result.returncode, None, lines[-20:],
                        fix="the lines above say why; `tritondev build --target triton-opt` shows build errors alone")


def _build_triton_opt(ctx: AppContext) -> None:
    from bootstrap.core import ui
    from bootstrap.pipeline.build import run_build

    if ctx.dry_run:
        run_build(ctx, "triton-opt", ui.err())
        return
    with ctx.workspace.lock("build"):
        run_build(ctx, "triton-opt", ui.err())


def register(app: typer.Typer) -> None:
    test_app = typer.Typer(help="Run Triton's own tests from the workspace's build.", no_args_is_help=True)
    test_app.command("lit")(lit)
    app.add_typer(test_app, name="test")
