"""`tritondev doctor`: find and fix what breaks Triton development."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, ClassVar, Optional

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.errors import TritondevError
    from bootstrap.doctor.engine import Report
    from bootstrap.doctor.model import CheckSpec

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Arch = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--arch", help="Check another GPU arch than this machine's, e.g. sm_90a, sm_121."),
]
Check = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--check", help="Run only this check or group (repeatable)."),
]
ListChecks = Annotated[bool, options.flag("--list-checks", help="List the checks and exit.")]
Fix = Annotated[bool, options.flag("--fix", help="Apply the safe fixes and report what was done.")]
Strict = Annotated[bool, options.flag("--strict", help="Warnings fail too (exit 1).")]
Deep = Annotated[bool, options.flag("--deep", help="Also run a tiny torch.compile (imports torch).")]


# logs: none while reading, so that a read-only run never creates the workspace (--fix takes the lock to act).
@options.command(
    "workspace", "python", "triton_src", "json", "dry_run", "verbose", reads_target=True, lock="exclusive", echo="text"
)
def doctor(
    ctx: AppContext,
    arch: Arch = None,
    check: Check = None,
    list_checks: ListChecks = False,
    fix: Fix = False,
    strict: Strict = False,
    deep: Deep = False,
) -> Outcome:
    """Named checks of the Python env, packages, toolchain, GPU, ptxas, cache and workspace.

    Each check prints ok / warning / error / skipped, with the fix inline.

    --fix applies the safe ones: purge owners of triton/, write proven ptxas variables, clear stale cache.

    Exit 0 when no errors (with --strict: no warnings either), 1 otherwise, 2 for bad input.
    """
    from bootstrap.core import fixlines, ui
    from bootstrap.doctor.arch import parse_arch
    from bootstrap.doctor.options import DoctorOptions, start_facts

    parsed_arch = parse_arch(arch) if arch is not None else None
    chosen: tuple[CheckSpec, ...] = ()
    if check or list_checks:  # names are validated before anything runs; with none, every check runs
        from bootstrap.doctor.catalog import load_checks, select

        chosen = tuple(select(check or [], load_checks()))
    # A fix that says "tritondev doctor --fix" applies to what this run looked at.
    narrowed = [w for name in check or [] for w in ("--check", name)]
    fixlines.narrow("doctor", [*narrowed, "--arch", arch] if arch else narrowed)
    if list_checks:
        return CheckList(chosen)
    if ctx.dry_run and not fix:
        ui.info("doctor only reads; --dry-run matters with --fix")
    asked = DoctorOptions(arch=parsed_arch, checks=check or [], deep=deep, fix=fix)
    # The target's probes run while the checks' modules are imported; the facts are closed (probes
    # awaited, temporary folders removed) however this ends, a Ctrl-C during that import included.
    with start_facts(ctx, asked) as facts:
        from bootstrap.doctor.run import run_doctor

        report = run_doctor(ctx, asked, facts)
    return DoctorOutcome(
        report,
        ctx.workspace.root,
        ctx.chosen_target().reason,
        parsed_arch,
        ctx.dry_run,
        strict=strict,
        verbose=ctx.verbose,
    )


@dataclass(frozen=True)
class CheckList(Outcome):
    """`doctor --list-checks`: the checks chosen, by name and title."""

    specs: tuple[CheckSpec, ...]

    def to_json(self) -> dict[str, object]:
        from bootstrap.doctor.render import list_checks_json

        return list_checks_json(list(self.specs))

    def render(self) -> None:
        from bootstrap.core import ui

        width = max(len(s.name) for s in self.specs)
        for spec in self.specs:
            ui.out().print(f"{spec.name.ljust(width)}  {spec.title}", markup=False)


@dataclass(frozen=True)
class DoctorOutcome(Outcome):
    """The doctor's report: one line per check with its fix, or the JSON document."""

    # The report (text or JSON) already names each problem and its fix; the exit code says it failed.
    renders_failure: ClassVar[bool] = True

    report: Report
    workspace: Path
    target_reason: str  # why that interpreter (ChosenTarget.reason)
    arch: int | None
    dry_run: bool
    strict: bool
    verbose: bool

    def to_json(self) -> dict[str, object]:
        from bootstrap.doctor.render import report_json

        return report_json(
            self.report,
            strict=self.strict,
            workspace=self.workspace,
            target_reason=self.target_reason,
            arch=self.arch,
            dry_run=self.dry_run,
        )

    def render(self) -> None:
        from bootstrap.core import ui
        from bootstrap.doctor.render import render_text

        target = self.report.target
        where = f"{target.executable} ({target.origin})" if target is not None else "no target environment"
        header = f"tritondev doctor: {where}; workspace {self.workspace}"
        console = ui.out()
        for line in render_text(self.report, verbose=self.verbose, strict=self.strict, header=header):
            console.print(line)

    @property
    def failure(self) -> TritondevError | None:
        from bootstrap.core.errors import CheckFailed

        problems = self.report.open_problems(self.strict)
        if not problems:
            return None
        return CheckFailed(f"doctor found {len(problems)} problem(s): {', '.join(r.name for r in problems)}")


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
