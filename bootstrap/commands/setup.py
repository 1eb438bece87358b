"""`tritondev setup`: from nothing to an installed, verified Triton source build."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from bootstrap.commands import options

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
BuildType = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--build-type", help="Triton build type: Debug, Release or RelWithDebInfo (default: RelWithDebInfo)",
                 show_default=False),
]
LlvmBuildType = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--llvm-build-type", show_default=False,
                 help="LLVM/MLIR build type (default: Release, with assertions: a Debug LLVM needs tens of GB"
                      " and links slowly, and Triton work rarely steps into LLVM)"),
]


def register(app: typer.Typer) -> None:
    @app.command("setup")
    def setup(
        build_type: BuildType = None,
        llvm_build_type: LlvmBuildType = None,
        torch_ref: options.TorchRef = None,
        triton_commit: options.TritonCommit = None,
        backend: options.Backend = None,
        pytorch_url: options.PytorchUrl = None,
        triton_url: options.TritonUrl = None,
        llvm_url: options.LlvmUrl = None,
        mirror: options.Mirror = None,
        jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Compile jobs (default: sized from cores and memory).", show_default=False)] = None,  # noqa: E501, UP045
        link_jobs: Annotated[Optional[int], typer.Option("--link-jobs", help="Parallel link jobs (default: sized from memory).", show_default=False)] = None,  # noqa: E501, UP045
        ccache: Annotated[Optional[bool], typer.Option("--ccache/--no-ccache", help="Use ccache when installed (default: on).", show_default=False)] = None,  # noqa: E501, UP045
        lld: Annotated[Optional[bool], typer.Option("--lld/--no-lld", help="Build with clang and lld when installed (default: on).", show_default=False)] = None,  # noqa: E501, UP045
        ccache_remote: Annotated[Optional[str], typer.Option("--ccache-remote", help="ccache remote storage URL (redis://, http(s)://); never shown unmasked.")] = None,  # noqa: E501, UP045
        allow_dirty: Annotated[Optional[bool], typer.Option("--allow-dirty", help="Build checkouts with local changes as they stand.")] = None,  # noqa: E501, UP045
        skip_verify: Annotated[Optional[bool], typer.Option("--skip-verify", help="Skip the kernel check (provenance is always checked).")] = None,  # noqa: E501, UP045
        full_history: Annotated[Optional[bool], typer.Option("--full-history", help="Clone full history instead of the pinned commits only.")] = None,  # noqa: E501, UP045
        workspace: options.Workspace = None,
        python: options.Python = None,
        dry_run: options.DryRun = False,
        json: options.Json = False,
        verbose: options.Verbose = False,
    ) -> None:
        """Purge other tritons, resolve pins, fetch sources, build LLVM/MLIR and Triton, install, verify.

        A re-run with nothing changed does nothing and says so.
        A changed setting re-runs only what depends on it; an interrupted run resumes.

        Exit codes: 0 ok, 1 verification failed, 2 bad option, 3 tool missing,
        4 a command failed (log path shown), 5 pin mismatch, 6 workspace locked or dirty checkout.
        """
        from bootstrap.core import ui
        from bootstrap.core.context import make_context
        from bootstrap.pipeline.setup import precheck, run_setup

        given = options.given(
            build_type=build_type, llvm_build_type=llvm_build_type, torch_ref=torch_ref, triton_commit=triton_commit,
            backend=backend, pytorch_url=pytorch_url, triton_url=triton_url, llvm_url=llvm_url, mirror=mirror,
            jobs=jobs, link_jobs=link_jobs, ccache=ccache, lld=lld, ccache_remote=ccache_remote,
            allow_dirty=allow_dirty, skip_verify=skip_verify, full_history=full_history, workspace=workspace,
            python=python,
        )
        ctx = make_context(given, json=json, dry_run=dry_run, verbose=verbose, logs=not dry_run)
        ctx.runner.quiet = json or dry_run
        console = ui.err()
        precheck(ctx)  # bad input stops here, before the lock creates the workspace
        if dry_run:
            report = run_setup(ctx, console)
        else:
            with ctx.workspace.lock("setup"):
                report = run_setup(ctx, console)
        if json:
            ui.emit_json(report.to_json())
            return
        render(report)


def render(report: object) -> None:
    """Human output: the plan under --dry-run, else what each step did, on stdout."""
    from rich.markup import escape
    from rich.table import Table

    from bootstrap.core import ui
    from bootstrap.pipeline.report import SetupReport

    assert isinstance(report, SetupReport)
    out = ui.out()
    for notice in report.notices:
        ui.warn(notice)
    jobs, tools = report.jobs, report.toolchain
    linker = "lld" if tools.get("linker") == "lld" else "the default linker"
    ccache = "ccache" if tools.get("ccache") else "no ccache"
    plan = (
        f"# build: {tools.get('compiler')} with {linker}, {ccache}; {jobs.get('compile')} compile and"
        f" {jobs.get('link')} link jobs ({jobs.get('reason')}); LLVM build {report.llvm_build}"
    )
    if report.dry_run:
        out.print(escape(plan))
        out.print(f"# tritondev setup --dry-run: {len(report.commands)} command(s) a real run would execute")
        step = None
        for command in report.commands:
            if command.step != step:
                step = command.step
                out.print(f"# {step}")
            out.print(escape(command.render()))
        out.print("# steps: " + ", ".join(f"{o.name} ({o.status.value})" for o in report.steps))
        return
    out.print(escape(plan[2:]))
    table = Table(title=f"tritondev setup ({report.workspace})", title_justify="left")
    for column in ("step", "status", "why", "seconds"):
        table.add_column(column)
    for outcome in report.steps:
        table.add_row(outcome.name, outcome.status.value, escape(outcome.reason), f"{outcome.seconds:.1f}")
    out.print(table)
    for label, stats in report.ccache.items():
        out.print(f"{label}: {stats.describe()}")
    if report.verify:
        prov = report.verify.get("provenance")
        if isinstance(prov, dict):
            out.print(
                f"verified: triton {prov.get('version')} imports from {prov.get('file')},"
                f" built against LLVM {str(prov.get('llvm_revision'))[:12]} ({prov.get('llvm_syspath')})"
            )
    if report.up_to_date:
        out.print("Everything is up to date: nothing to do.")
