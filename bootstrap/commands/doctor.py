"""`tritondev doctor`: find and fix what breaks Triton development."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from bootstrap.commands import options


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor(
        arch: Annotated[
            Optional[str],  # noqa: UP045
            typer.Option("--arch", help="Check another GPU arch than this machine's, e.g. sm_90a, sm_121.",
                         show_default=False),
        ] = None,
        check: Annotated[
            Optional[list[str]],  # noqa: UP045
            typer.Option("--check", help="Run only this check or group (repeatable).", show_default=False),
        ] = None,
        list_checks: Annotated[bool, typer.Option("--list-checks", help="List the checks and exit.")] = False,
        fix: Annotated[bool, typer.Option("--fix", help="Apply the safe fixes and report what was done.")] = False,
        strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too (exit 1).")] = False,
        deep: Annotated[bool, typer.Option("--deep", help="Also run a tiny torch.compile (imports torch).")] = False,
        workspace: options.Workspace = None,
        python: options.Python = None,
        json: options.Json = False,
        dry_run: options.DryRun = False,
        verbose: options.Verbose = False,
    ) -> None:
        """Named checks of the Python env, packages, toolchain, GPU, ptxas, cache and workspace.

        Each check prints ok / warning / error / skipped, with the fix inline.

        --fix applies the safe ones: purge owners of triton/, write proven ptxas variables, clear stale cache.

        Exit 0 when no errors (with --strict: no warnings either), 1 otherwise, 2 for bad input.
        """
        from bootstrap.core import ui
        from bootstrap.core.context import CURRENT
        from bootstrap.doctor import DoctorOptions, run_doctor
        from bootstrap.doctor.arch import parse_arch
        from bootstrap.doctor.registry import load_checks, select
        from bootstrap.doctor.render import list_checks_json, render_text, report_json

        CURRENT.json = json  # bad input below is reported as JSON too
        parsed_arch = parse_arch(arch) if arch is not None else None
        registry = load_checks()
        chosen = select(check or [], registry)  # validates names before anything runs
        if list_checks:
            if json:
                ui.emit_json(list_checks_json(chosen))
            else:
                width = max(len(s.name) for s in chosen)
                for spec in chosen:
                    ui.out().print(f"{spec.name.ljust(width)}  {spec.title}", markup=False)
            return
        if dry_run and not fix:
            ui.info("doctor only reads; --dry-run matters with --fix")
        ctx = make_doctor_context(workspace, python, json=json, dry_run=dry_run, verbose=verbose)
        report = run_doctor(ctx, DoctorOptions(arch=parsed_arch, checks=check or [], deep=deep, fix=fix))
        target = ctx._target
        context = {
            "workspace": str(ctx.workspace.root),
            "target": target.to_json() if target is not None else None,
            "arch": parsed_arch,
            "dry_run": dry_run,
        }
        if json:
            ui.emit_json(report_json(report, strict=strict, context=context))
        else:
            where = f"{target.executable} ({target.origin})" if target is not None else "no target environment"
            header = f"tritondev doctor: {where}; workspace {ctx.workspace.root}"
            console = ui.out()
            for line in render_text(report, verbose=verbose, strict=strict, header=header):
                console.print(line)
        code = report.exit_code(strict)
        if code:
            raise typer.Exit(code)


def make_doctor_context(workspace: object, python: object, *, json: bool, dry_run: bool, verbose: bool):  # type: ignore[no-untyped-def]
    from bootstrap.core.context import make_context

    # logs=False: a read-only run must not create the workspace (--fix turns logs on when it acts).
    ctx = make_context(
        options.given(workspace=workspace, python=python), json=json, dry_run=dry_run, verbose=verbose, logs=False
    )
    ctx.runner.quiet = json and not verbose
    return ctx
