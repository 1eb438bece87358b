"""`tritondev bisect triton|llvm|resume|reset`: the first bad Triton (or LLVM) commit for a command."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Annotated, ClassVar, Optional

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.errors import TritondevError
    from bootstrap.pipeline.bisect.journal import BuildFailureMode
    from bootstrap.pipeline.bisect.outcome import BisectOutcome
    from bootstrap.pipeline.bisect.restore import ResetOutcome

# The settings that decide how each commit is built (as setup's), and where missing commits come from.
BUILD_SETTINGS = (
    "workspace",
    "build_type",
    "llvm_build_type",
    "backend",
    "triton_url",
    "llvm_url",
    "mirror",
    "jobs",
    "link_jobs",
    "ccache",
    "lld",
    "ccache_remote",
    "distcc",
    "skip_verify",
)


class BuildFailure(str, Enum):
    skip = "skip"
    bad = "bad"


def _mode(choice: BuildFailure) -> BuildFailureMode:
    return "bad" if choice is BuildFailure.bad else "skip"


Good = Annotated[
    str, typer.Option("--good", help="A commit (tag, branch, id) where the command passes.", show_default=False)
]
Bad = Annotated[str, typer.Option("--bad", help="A later commit where it fails.", show_default=False)]
OnBuildFailure = Annotated[
    BuildFailure,
    typer.Option("--build-failure", help="A commit that does not build is skipped (skip), or is what is hunted (bad)."),
]
Command = Annotated[
    Optional[list[str]],  # noqa: UP045 - Typer needs Optional on Python 3.10
    typer.Argument(
        help="The test (after --): exit 0 good, 125 skip, 1-127 or a crash bad.", metavar="-- CMD", show_default=False
    ),
]


@options.command(*BUILD_SETTINGS, "dry_run", "json", "verbose", writes_logs=True, lock="exclusive", echo="verbose")
def triton(
    ctx: AppContext, good: Good, bad: Bad, command: Command = None, build_failure: OnBuildFailure = BuildFailure.skip
) -> BisectShown:
    """Find the first Triton commit between --good and --bad for which COMMAND fails.

    Each step checks a commit out, builds it as `tritondev setup` would (its own LLVM pin: a kept LLVM build is reused, another is built once), reinstalls it and runs COMMAND with the target environment first on PATH. A commit that does not build is skipped. At the end the checkout is back at its starting commit with the starting build installed.

    Exit codes: 0 first bad commit found, 1 only skipped commits are left (the candidates are listed), 2 bad input or no setup, 3 COMMAND not found, 4 a build tool failed or COMMAND aborted (exit 128-255 other than a crash), 6 local changes, workspace locked or another bisect recorded, 130 interrupted (the same command resumes).
    """  # noqa: E501
    from bootstrap.pipeline.bisect.entry import bisect_range

    return BisectShown(bisect_range(ctx, "triton", good, bad, _mode(build_failure), command))


@options.command(*BUILD_SETTINGS, "dry_run", "json", "verbose", writes_logs=True, lock="exclusive", echo="verbose")
def llvm(
    ctx: AppContext, good: Good, bad: Bad, command: Command = None, build_failure: OnBuildFailure = BuildFailure.skip
) -> BisectShown:
    """Find the first LLVM commit between --good and --bad for which COMMAND fails, Triton fixed.

    Each step checks the LLVM commit out and builds it incrementally in one folder (build/llvm-bisect/, ccache), rebuilds Triton against it and runs COMMAND. --build-failure bad finds the first LLVM that Triton no longer builds against.

    Exit codes: as `tritondev bisect triton --help` lists them.
    """  # noqa: E501
    from bootstrap.pipeline.bisect.entry import bisect_range

    return BisectShown(bisect_range(ctx, "llvm", good, bad, _mode(build_failure), command))


@options.command(*BUILD_SETTINGS, "json", "verbose", writes_logs=True, lock="exclusive", echo="verbose")
def resume(ctx: AppContext) -> BisectShown:
    """Go on with a bisect that was interrupted or aborted, without testing a commit again."""
    from bootstrap.pipeline.bisect.entry import resume_bisect

    return BisectShown(resume_bisect(ctx))


@options.command(*BUILD_SETTINGS, "json", "verbose", writes_logs=True, lock="exclusive", echo="verbose")
def reset(ctx: AppContext) -> ResetShown:
    """Forget the recorded bisect; if it left the checkouts moved, put them and the starting build back."""
    from bootstrap.pipeline.bisect.entry import reset_bisect

    return ResetShown(reset_bisect(ctx))


def register(app: typer.Typer) -> None:
    bisect_app = typer.Typer(
        help="Find the first bad Triton or LLVM commit for a command, in few rebuilds.", no_args_is_help=True
    )
    bisect_app.command("triton", cls=options.OwnOptionsThenCommand)(triton)
    bisect_app.command("llvm", cls=options.OwnOptionsThenCommand)(llvm)
    bisect_app.command("resume")(resume)
    bisect_app.command("reset")(reset)
    app.add_typer(bisect_app, name="bisect")


@dataclass(frozen=True)
class ResetShown(Outcome):
    result: ResetOutcome

    def to_json(self) -> dict[str, object]:
        return self.result.to_json()

    def render(self) -> None:
        from bootstrap.core import ui

        ui.out().print(self.result.message)


@dataclass(frozen=True)
class BisectShown(Outcome):
    """The bisect's steps and result; with only skipped commits left, the candidates are its failure."""

    result: BisectOutcome
    renders_failure: ClassVar[bool] = True  # the candidates, listed, say it

    def to_json(self) -> dict[str, object]:
        return self.result.to_json()

    @property
    def failure(self) -> TritondevError | None:
        from bootstrap.core.errors import CheckFailed

        if self.result.state.first_bad is None and not self.result.dry_run:
            return CheckFailed("no single first bad commit: only skipped commits are left")
        return None

    def render(self) -> None:
        from rich.markup import escape
        from rich.table import Table

        from bootstrap.core import ui

        outcome = self.result
        state, journal = outcome.state, outcome.journal
        out = ui.out()
        if outcome.dry_run:
            out.print(
                f"would bisect {len(journal.range.commits)} {journal.kind} commits between "
                f"{journal.range.good[:12]} (good) and {journal.range.bad[:12]} (bad) in about "
                f"{state.steps_left} steps; the first to test: {state.next and state.next[:12]} "
                f"{escape(journal.range.subject(state.next or ''))}"
            )
            return
        table = Table(title=f"tritondev bisect {journal.kind} ({outcome.workspace})", title_justify="left")
        for column in ("step", "commit", "verdict", "seconds", "LLVM", "subject"):
            table.add_column(column)
        for s in journal.steps:
            llvm = ("built " if s.llvm_rebuilt else "kept ") + (s.llvm_commit or "?")[:12]
            table.add_row(str(s.number), s.commit[:12], s.verdict.value, f"{s.seconds:.1f}", llvm, escape(s.subject))
        out.print(table)
        for line in _result_lines(outcome):
            out.print(escape(line))


def _result_lines(outcome: BisectOutcome) -> list[str]:
    state, journal = outcome.state, outcome.journal
    first = state.first_bad
    lines: list[str] = []
    if first is None:
        lines.append(f"the first bad commit is one of {len(state.candidates)} (the others could not be tested):")
        lines += [f"  {c} {journal.range.subject(c)}" for c in state.candidates]
    else:
        lines.append(f"first bad commit: {first} {journal.range.subject(first)}")
        if journal.kind == "triton":
            before, at = outcome.pin(outcome.parent_of(first)), outcome.pin(first)
            if before == at:
                lines.append(f"LLVM pin: {str(at)[:12]} before it and at it (unchanged)")
            else:
                lines.append(
                    f"LLVM pin: {str(before)[:12]} before it, {str(at)[:12]} at it: an LLVM bump. With Triton "
                    f"at a commit that builds against both, `tritondev bisect llvm --good {before} --bad "
                    f"{at} -- ...` looks for the LLVM commit"
                )
    lines.append(
        f"{len(journal.steps)} steps over {len(journal.range.commits)} commits, {outcome.llvm_builds} "
        f"LLVM builds, {sum(s.seconds for s in journal.steps):.1f} s; logs in "
        f"{outcome.workspace / 'logs' / 'bisect'}"
    )
    if outcome.restored is not None:
        lines.append(f"restored: {outcome.restored.text()}")
    return lines
