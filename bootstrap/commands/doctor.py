"""`tritondev doctor`: find and fix what breaks Triton development."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.interpreter import TargetPython
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


# logs: none while reading, so that a read-only run never creates the workspace (--fix turns them on to act).
@options.command("workspace", "python", "triton_src", "json", "dry_run", "verbose", reads_target=True)
def doctor(
    ctx: AppContext,
    arch: Arch = None,
    check: Check = None,
    list_checks: ListChecks = False,
    fix: Fix = False,
    strict: Strict = False,
    deep: Deep = False,
) -> None:
    """Named checks of the Python env, packages, toolchain, GPU, ptxas, cache and workspace.

    Each check prints ok / warning / error / skipped, with the fix inline.

    --fix applies the safe ones: purge owners of triton/, write proven ptxas variables, clear stale cache.

    Exit 0 when no errors (with --strict: no warnings either), 1 otherwise, 2 for bad input.
    """
    from bootstrap.core import ui
    from bootstrap.doctor import DoctorOptions, run_doctor
    from bootstrap.doctor.arch import parse_arch
    from bootstrap.doctor.catalog import load_checks, select

    parsed_arch = parse_arch(arch) if arch is not None else None
    chosen = select(check or [], load_checks())  # validates names before anything runs
    from bootstrap.core import fixlines

    # A fix that says "tritondev doctor --fix" applies to what this run looked at.
    narrowed = [w for name in check or [] for w in ("--check", name)]
    fixlines.narrow("doctor", [*narrowed, "--arch", arch] if arch else narrowed)
    if list_checks:
        _list(chosen, ctx.json)
        return
    if ctx.dry_run and not fix:
        ui.info("doctor only reads; --dry-run matters with --fix")
    ctx = ctx.with_runner(ctx.runner.quiet(ctx.json and not ctx.verbose))
    report = run_doctor(ctx, DoctorOptions(arch=parsed_arch, checks=check or [], deep=deep, fix=fix))
    _render(ctx, report, arch=parsed_arch, strict=strict)
    problems = report.open_problems(strict)
    if problems:
        from bootstrap.core.errors import CheckFailed

        names = ", ".join(r.name for r in problems)
        # The report (text or JSON) already names each problem and its fix; the exit code says it failed.
        raise CheckFailed(f"doctor found {len(problems)} problem(s): {names}", reported=True)


def _list(specs: list[CheckSpec], as_json: bool) -> None:
    from bootstrap.core import ui
    from bootstrap.doctor.render import list_checks_json

    if as_json:
        ui.emit_json(list_checks_json(specs))
        return
    width = max(len(s.name) for s in specs)
    for spec in specs:
        ui.out().print(f"{spec.name.ljust(width)}  {spec.title}", markup=False)


def _render(ctx: AppContext, report: Report, *, arch: int | None, strict: bool) -> None:
    from bootstrap.core import ui
    from bootstrap.doctor.render import render_text, report_json

    target = _target_for_report(ctx)
    if ctx.json:
        context = {
            "workspace": str(ctx.workspace.root),
            "target": {**target.to_json(), "reason": ctx.target_json()["reason"]} if target is not None else None,
            "arch": arch,
            "dry_run": ctx.dry_run,
        }
        ui.emit_json(report_json(report, strict=strict, context=context))
        return
    where = f"{target.executable} ({target.origin})" if target is not None else "no target environment"
    header = f"tritondev doctor: {where}; workspace {ctx.workspace.root}"
    console = ui.out()
    for line in render_text(report, verbose=ctx.verbose, strict=strict, header=header):
        console.print(line)


def _target_for_report(ctx: AppContext) -> TargetPython | None:
    """The target the report is about, probed now if no selected check needed it (--check workspace.dirty);
    None when there is none or it is not usable (python.interpreter, when run, says why)."""
    from bootstrap.core.errors import TritondevError

    target = ctx.probed_target()
    if target is not None:
        return target
    try:
        return ctx.target_python_if_present()
    except TritondevError:
        return None


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
