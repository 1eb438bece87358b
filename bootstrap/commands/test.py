"""`tritondev test NAME [ARGS]`: upstream's test targets (its Makefile's test-NAME, or any target by its
name) from the workspace's build."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from collections.abc import Callable

    from bootstrap.core.context import AppContext
    from bootstrap.core.errors import TritondevError
    from bootstrap.ir.litupdate import UpdateResult
    from bootstrap.pipeline.testing.run import TestReport

Args = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Argument(
        metavar="[ARGS]...",
        help="pytest's arguments (-k EXPR, -x, -n 2, a test file or FILE::TEST:"
        " paths replace the target's own), or ctest's for cpp; after `--` when they look like tritondev's",
    ),
]
InstallRequirements = Annotated[
    bool,
    options.flag(
        "--install-requirements",
        help="Install python/test-requirements.txt into the target environment first"
        " when something of it is missing (the Makefile's dev-install-requires).",
    ),
]
Pattern = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(
        metavar="PATTERN",
        help="A test file or folder under test/ (TritonGPU/coalesce.mlir, or"
        " test/TritonGPU/coalesce.mlir), else a regex for lit --filter. Left out: every lit test (the"
        " Makefile's test-lit).",
    ),
]
Update = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--update",
        metavar="PATH",
        help="Regenerate the CHECK lines of this golden lit test (one that"
        " carries generate-test-checks.py's NOTE header) the way upstream's golden-samples target does;"
        " write only this file and show the diff.",
    ),
]
HandWritten = Annotated[
    bool,
    options.flag(
        "--hand-written",
        help="With --update: regenerate a test whose CHECK lines were written by hand (no NOTE"
        " header); its own CHECK lines are replaced by generated ones.",
    ),
]
_EXTRA = {"allow_extra_args": True, "ignore_unknown_options": True}
TARGETS: dict[str, str] = {
    "cpp": "the C++ unit tests: ninja check-triton-unit-tests (ctest; before 3.3: ninja, then ctest). No GPU needed.",
    "unit": "the Python unit tests (python/test/unit; on main upstream's test runner), on the GPU.",
    "interpret": "the interpreter's tests: TRITON_INTERPRET=1 pytest -m interpreter ... --device=cpu. No GPU needed.",
    "regression": "the regression tests (python/test/regression), on the GPU.",
    "gluon": "the Gluon tests (python/test/gluon, Triton 3.4 on), on the GPU.",
    "proton": "the Proton profiler's tests (third_party/proton/test), on the GPU.",
    "nogpu": "the Makefile's test-nogpu: test-lit, test-cpp and (3.6 on) the frontend's pytest files. No GPU needed.",
}
_CODES = (
    "Exit codes: 0 all passed; 1 a test failed, or none ran; 2 no Triton build, no such target at this commit,"
    " or a GPU needed; 3 a requirement missing; 4 the build or the runner itself failed; 6 a setup, build or"
    " bisect of the workspace is running."
)
_ANY = (
    "Any other target of the checkout's Makefile runs by its name, test-NAME or NAME: tritondev test python,"
    " tritondev test plugins, tritondev test golden-samples."
)


def _target_command(name: str, what: str) -> Callable[..., Any]:
    def body(ctx: AppContext, args: Args = None, install_requirements: InstallRequirements = False) -> Outcome:
        from bootstrap.pipeline.testing.run import TestRequest, run_tests

        request = TestRequest(name, tuple(args or ()), install_requirements, Path.cwd())
        return TestsRan(name, run_tests(ctx, request))

    body.__name__ = name.replace("-", "_")
    body.__doc__ = (
        f"Run {what}\n\nThe commands are the checkout's own Makefile target, at this commit, in setup's"
        " build folder and target environment; the counts come from each runner's own report."
        f"\n\n{_CODES}"
    )
    # The lock shared: a test target only reads the build folder (one that builds takes it exclusive).
    return options.command("workspace", "dry_run", "json", "verbose", writes_logs=True, lock="shared", echo="text")(
        body
    )


@dataclass(frozen=True)
class TestsRan(Outcome):
    """The closing line (or the one JSON document); then the failure: 4 a command failed otherwise than by
    a test (the build), 1 a test failed or none ran. A dry run counts nothing and says no counts."""

    name: str
    report: TestReport
    pattern: str | None = None  # `test lit PATTERN`

    def to_json(self) -> dict[str, object]:
        extra = {"pattern": self.pattern} if self.pattern is not None else {}
        return {**self.report.to_json(), **extra, "dry_run": self.report.dry_run}

    def render(self) -> None:
        from bootstrap.core import ui

        report, name = self.report, self.name
        counts = report.counts
        if report.dry_run:
            return
        if not any(o.step.counter != "none" for o in report.outcomes):
            ui.info(f"test {name}: {len(report.outcomes)} command(s) ran, none of them a test runner that counts")
            return
        unknown = next((o for o in report.outcomes if o.counts is None and o.step.counter != "none"), None)
        ui.info(
            f"test {name}: {counts.describe()}"
            if counts is not None
            else f"test {name}: counts unknown (`{unknown.step.argv[0] if unknown else '?'} ...` wrote no report)"
        )

    @property
    def failure(self) -> TritondevError | None:
        from bootstrap.core.errors import CheckFailed, CommandFailed

        report, name, counts = self.report, self.name, self.report.counts
        broken = report.first("failed")
        if broken is not None:
            return CommandFailed(
                broken.step.argv,
                broken.returncode,
                None,
                (),
                fix="the lines above say why; `tritondev build` shows build errors alone",
            )
        tests = report.first("tests-failed")
        if tests is not None:
            lit = [t.split(" :: ", 1)[-1] for o in report.outcomes for t in o.failed_tests]
            say = f"{counts.failed} failed, {counts.errors} errors" if counts is not None else "tests failed"
            fix = (
                f"their output is above; re-run one: tritondev test lit {lit[0]}"
                if lit
                else f"their output is above; re-run one: tritondev test {name} FILE::TEST"
            )
            return CheckFailed(f"test {name}: {say}{': ' + ', '.join(lit[:5]) if lit else ''}", fix=fix)
        empty = report.first("no-tests")
        if empty is not None:
            return CheckFailed(
                f"test {name}: no test ran (`{' '.join(empty.step.argv[:6])}` found none)",
                fix="check the test paths and filters given (-k, -R, the lit PATTERN)",
            )
        return None


@options.command("workspace", "dry_run", "json", "verbose", writes_logs=True, lock="shared", echo="text")
def lit(ctx: AppContext, pattern: Pattern = None, update: Update = None, hand_written: HandWritten = False) -> Outcome:
    """Run Triton's lit tests with the workspace's triton-opt, FileCheck and lit, as `make test-lit` does.

    Without PATTERN: the Makefile's test-lit (ninja check-triton-lit-tests) in setup's Triton build folder. With one: ninja triton-opt, then lit -v <build>/test/PATTERN (or --filter PATTERN). With --update PATH: the CHECK lines of that golden test regenerated as upstream's golden-samples does, only that file written, its diff shown. No GPU needed.

    Exit codes: 0 all passed; 1 a test failed, or none ran; 2 no Triton build, or a test --update cannot regenerate; 3 lit missing; 4 the build or lit itself failed; 6 a setup, build or bisect is running, or --update would overwrite uncommitted changes.
    """  # noqa: E501
    from bootstrap.core.errors import UsageError

    if hand_written and update is None:
        raise UsageError(
            "--hand-written goes with --update PATH", fix="tritondev test lit --update PATH --hand-written"
        )
    if update is not None:
        from bootstrap.ir.litupdate import run_update

        return LitUpdated(run_update(ctx, update, hand_written), ctx.dry_run)
    if pattern is None:
        from bootstrap.pipeline.testing.run import TestRequest, run_tests

        return TestsRan("lit", run_tests(ctx, TestRequest("lit", (), False, Path.cwd())))
    from bootstrap.ir.lit import run_lit

    return TestsRan("lit", run_lit(ctx, pattern), pattern)


@dataclass(frozen=True)
class LitUpdated(Outcome):
    """`test lit --update PATH`: the diff of the regenerated CHECK lines, and whether the file was written."""

    result: UpdateResult
    dry_run: bool

    def to_json(self) -> dict[str, object]:
        return {**self.result.to_json(), "dry_run": self.dry_run}

    def render(self) -> None:
        from bootstrap.core import ui

        result = self.result
        if result.diff:
            ui.out().print(result.diff, markup=False, highlight=False, end="")
        done = "written" if result.written else "not written (--dry-run)" if result.diff else "already up to date"
        ui.info(f"{result.plan.test}: {done}")


class TargetGroup(TyperGroup):
    """`tritondev test NAME`: the commands named here, and any other target of the Makefile by its name."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name.startswith("-"):
            return found
        single = typer.Typer()
        single.command(cmd_name, context_settings=_EXTRA)(
            _target_command(cmd_name, f"the Makefile's target test-{cmd_name} (or {cmd_name}).")
        )
        return typer.main.get_command(single)


def register(app: typer.Typer) -> None:
    test_app = typer.Typer(
        cls=TargetGroup,
        no_args_is_help=True,
        help=f"Run Triton's own tests, its Makefile's targets, from the workspace's build. {_ANY}",
    )
    test_app.command("lit")(lit)
    for name, what in TARGETS.items():
        test_app.command(name, context_settings=_EXTRA)(_target_command(name, what))
    app.add_typer(test_app, name="test")
