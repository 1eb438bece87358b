"""`tritondev test NAME [ARGS]`: upstream's test targets (its Makefile's test-NAME) from the workspace's build."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from collections.abc import Callable

    from bootstrap.core.context import AppContext

Args = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Argument(metavar="[ARGS]...", help="pytest's arguments (-k EXPR, -x, a test file or FILE::TEST: paths"
                   " replace the target's own), or ctest's for cpp; after `--` when they look like tritondev's"),
]
InstallRequirements = Annotated[bool, options.flag(
    "--install-requirements", help="Install python/test-requirements.txt into the target environment first"
    " when something of it is missing (the Makefile's dev-install-requires).")]
Pattern = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(metavar="PATTERN", help="A test file or folder under test/ (TritonGPU/coalesce.mlir), else a "
                   "regex for lit --filter. Left out: every lit test (the Makefile's test-lit)."),
]
Update = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--update", metavar="PATH", help="Regenerate the CHECK lines of this lit test the way upstream's"
                 " golden-samples target does (triton-opt on its RUN line, utils/generate-test-checks.py), write"
                 " only this file and show the diff."),
]
_EXTRA = {"allow_extra_args": True, "ignore_unknown_options": True}
TARGETS: dict[str, str] = {
    "cpp": "the C++ unit tests: ninja check-triton-unit-tests (ctest). No GPU needed.",
    "unit": "the Python unit tests (python/test/unit), on the GPU.",
    "interpret": "the interpreter's tests: TRITON_INTERPRET=1 pytest -m interpreter ... --device=cpu. No GPU needed.",
    "regression": "the regression tests (python/test/regression), on the GPU.",
    "gluon": "the Gluon tests (python/test/gluon, Triton 3.4 on), on the GPU.",
    "proton": "the Proton profiler's tests (third_party/proton/test), on the GPU.",
    "nogpu": "test-lit and test-cpp: everything that needs no GPU.",
}
_CODES = ("Exit codes: 0 all passed; 1 a test failed; 2 no Triton build, no such target at this commit, or a GPU"
          " needed; 3 a requirement missing; 4 the build or the runner itself failed.")


def _target_command(name: str) -> Callable[..., Any]:
    def body(ctx: AppContext, args: Args = None, install_requirements: InstallRequirements = False) -> None:
        run_target(ctx, name, tuple(args or ()), install_requirements)

    body.__name__ = name
    body.__doc__ = (f"Run {TARGETS[name]}\n\nThe commands are the checkout's own Makefile target test-{name}, at"
                    " this commit, in setup's build folder and target environment; the counts come from each"
                    f" runner's own summary.\n\n{_CODES}")
    return options.command("workspace", "dry_run", "json", "verbose", writes_logs=True)(body)


def run_target(ctx: AppContext, name: str, args: tuple[str, ...], install_requirements: bool) -> None:
    from bootstrap.core import ui
    from bootstrap.core.errors import CheckFailed, CommandFailed
    from bootstrap.pipeline.testing.run import TestRequest, run_tests, stream_to

    ctx = ctx.with_runner(ctx.runner.quiet(ctx.json))
    request = TestRequest(name, args, install_requirements, Path.cwd())
    report = run_tests(ctx, request, stream_to(ctx.json))
    counts = report.counts
    if ctx.json:
        ui.emit_json({**report.to_json(), "dry_run": ctx.dry_run})
    else:
        ui.info(f"test {name}: {counts.describe()}")
    broken = report.failed_step
    if broken is not None:
        failed = CommandFailed(broken.step.argv, broken.returncode, None, (),
                               fix="the lines above say why; `tritondev build` shows build errors alone")
        failed.reported = ctx.json  # the report above is the one JSON document
        raise failed
    if counts.failed or counts.errors:
        raise CheckFailed(f"test {name}: {counts.failed} failed, {counts.errors} errors",
                          fix=f"their output is above; re-run one: tritondev test {name} FILE::TEST",
                          reported=ctx.json)


@options.command("workspace", "dry_run", "json", "verbose", writes_logs=True)
def lit(ctx: AppContext, pattern: Pattern = None, update: Update = None) -> None:
    """Run Triton's lit tests with the workspace's triton-opt, FileCheck and lit, as `make test-lit` does.

    Without PATTERN: the Makefile's test-lit (ninja check-triton-lit-tests) in setup's Triton build folder. With one: ninja triton-opt, then lit -v <build>/test/PATTERN (or --filter PATTERN). With --update PATH: the CHECK lines of that test regenerated as upstream's golden-samples does, only that file written, its diff shown. No GPU needed.

    Exit codes: 0 all passed; 1 a test failed; 2 no Triton build, or a test --update cannot regenerate; 3 lit missing; 4 the build or lit itself failed.
    """  # noqa: E501
    if update is not None:
        _update(ctx, update)
        return
    if pattern is None:
        run_target(ctx, "lit", (), False)
        return
    _lit_pattern(ctx, pattern)


def _update(ctx: AppContext, path: Path) -> None:
    from bootstrap.core import ui
    from bootstrap.ir.litupdate import run_update

    ctx = ctx.with_runner(ctx.runner.quiet(ctx.json))
    result = run_update(ctx, path)
    if ctx.json:
        ui.emit_json({**result.to_json(), "dry_run": ctx.dry_run})
        return
    if result.diff:
        ui.out().print(result.diff, markup=False, highlight=False, end="")
    done = "written" if result.written else "not written (--dry-run)" if result.diff else "already up to date"
    ui.info(f"{result.plan.test}: {done}")


def _lit_pattern(ctx: AppContext, pattern: str) -> None:
    import os

    from bootstrap.core import ui
    from bootstrap.core.errors import CheckFailed, CommandFailed
    from bootstrap.ir import lit as littests
    from bootstrap.pipeline.setup.built import find_build, runtime_env
    from bootstrap.pipeline.setup.state import read_state
    from bootstrap.pipeline.testing.counts import parse_summary
    from bootstrap.pipeline.testing.run import stream_to

    build = find_build(ctx.workspace.root, ctx.workspace.state)
    env = runtime_env(build, os.environ)
    from bootstrap.ir.tritonopt import build_triton_opt

    build_triton_opt(ctx)
    state = read_state(ctx.workspace.state)
    program = littests.lit_program(build.build_dir, state.python if state else None)
    argv = [program, *littests.lit_arguments(build.triton_src / "test", build.build_dir, pattern)]
    lines: list[str] = []
    show = stream_to(ctx.json)

    def collect(line: str) -> None:
        lines.append(line)
        show(line)

    result = ctx.runner.stream(argv, step="lit", check=False, on_line=collect, env=dict(env))
    summary = parse_summary(lines)
    tests_failed = bool(summary.failed or summary.counts.get("Failed"))
    if ctx.json and (result.returncode == 0 or tests_failed):
        from bootstrap.pipeline.testing.counts import Counts, lit_counts

        counts = lit_counts(lines) or Counts()
        ui.emit_json({"target": "lit", "pattern": pattern, "command": argv, "env": env,
                      "build_dir": str(build.build_dir), "dry_run": ctx.dry_run, "returncode": result.returncode,
                      "counts": counts.to_json(), "lit_counts": summary.counts, "failed": summary.failed})
    if result.returncode == 0:
        return
    if tests_failed:
        count = len(summary.failed) or summary.counts.get("Failed", 0)
        raise CheckFailed(f"{count} lit test(s) failed: {', '.join(summary.failed[:5])}",
                          fix="their output is above; re-run one with `tritondev test lit <its path under test/>`",
                          reported=ctx.json)
    raise CommandFailed(argv, result.returncode, None, lines[-20:],
                        fix="the lines above say why; `tritondev build --target triton-opt` shows build errors alone")


def register(app: typer.Typer) -> None:
    test_app = typer.Typer(help="Run Triton's own tests, its Makefile's test targets, from the workspace's build.",
                           no_args_is_help=True)
    test_app.command("lit")(lit)
    for name in TARGETS:
        test_app.command(name, context_settings=_EXTRA)(_target_command(name))
    app.add_typer(test_app, name="test")
