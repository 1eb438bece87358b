"""`tritondev setup`: from nothing to an installed, verified Triton source build."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from collections.abc import Callable

    from bootstrap.core.context import AppContext
    from bootstrap.core.errors import TritondevError
    from bootstrap.pipeline.setup.api import LlvmReport, SetupReport


@options.command(*options.EVERY_SETTING, "dry_run", "json", "verbose", writes_logs=True, lock="exclusive", echo="run")
def setup(ctx: AppContext) -> SetupOutcome:
    """Resolve pins, fetch sources, build LLVM/MLIR, purge other tritons, build and install Triton, verify.

    Installs into --python, else the active virtualenv or conda env, else <workspace>/venv (created then), and says which. Other Triton distributions are purged from it after the LLVM build, just before Triton is built and installed.

    A re-run with nothing changed does nothing and says so. A changed setting re-runs only what depends on it; an interrupted run resumes.

    Exit codes: 0 ok, 1 verification failed, 2 bad option, 3 tool missing, 4 a command failed (log path shown), 5 pin mismatch, 6 workspace locked or dirty checkout.
    """  # noqa: E501
    from bootstrap.core import ui
    from bootstrap.pipeline.setup.api import adopt_the_clone_around, setup_workspace

    ask = _asker()
    ctx = adopt_the_clone_around(ctx, ask)
    return SetupOutcome(setup_workspace(ctx, ui.err(), ask))


def register(app: typer.Typer) -> None:
    app.command("setup")(setup)


def _asker() -> Callable[[str], bool] | None:
    """A yes/no question on a terminal (default no); None in a script or CI: nobody to ask."""
    import sys

    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    return lambda question: bool(typer.confirm(question, default=False, err=True))


@dataclass(frozen=True)
class SetupOutcome(Outcome):
    """What setup did (or, under --dry-run, would do); a dry run whose real run would certainly fail says so
    once, at the end, with the code it would end with."""

    report: SetupReport

    def to_json(self) -> dict[str, object]:
        return self.report.to_json()

    def render(self) -> None:
        render(self.report)

    @property
    def failure(self) -> TritondevError | None:
        return self.report.failure


def render(report: SetupReport) -> None:
    """Human output: the plan under --dry-run, else what each step did, on stdout."""
    from rich.markup import escape
    from rich.table import Table

    from bootstrap.core import ui

    out = ui.out()
    for notice in report.notices:
        ui.warn(notice)
    for line in report.notes:
        ui.note(f"note: {line}")
    jobs, tools = report.jobs, report.toolchain
    linker = "lld" if tools is not None and tools.linker == "lld" else "the default linker"
    ccache = "ccache" if tools is not None and tools.ccache else "no ccache"
    if report.distcc is not None and report.distcc.proven and report.distcc.hosts.value:
        ccache += f" with distcc on {report.distcc.hosts.value}"
    llvm_build = report.llvm_build or "known once the pins resolve"
    compiler = tools.compiler if tools is not None else None
    plan = (
        f"# build: {compiler} with {linker}, {ccache}; {jobs.compile if jobs else None} compile and"
        f" {jobs.link if jobs else None} link jobs ({jobs.reason if jobs else None}); LLVM build {llvm_build}"
    )
    llvm = describe_llvm(report.llvm)
    if report.dry_run:
        _render_plan(report, plan, llvm)
        return
    out.print(escape(plan[2:]))
    if llvm:
        out.print(escape(f"llvm: {llvm}"))
    table = Table(title=ui.cell(f"tritondev setup ({report.workspace})"), title_justify="left")
    for column in ("step", "status", "why", "seconds"):
        table.add_column(column, overflow="fold")  # a narrow terminal folds a commit or path; it never cuts one
    for outcome in report.steps:
        table.add_row(outcome.name, outcome.status.value, escape(outcome.reason), f"{outcome.seconds:.1f}")
    out.print(table)
    for label, stats in report.ccache:
        out.print(f"{label}: {stats.describe()}")
    for label, counts in report.distcc_builds:
        out.print(f"{label}: {counts.describe()}", markup=False)
    if report.verify is not None:
        prov = report.verify.provenance
        out.print(
            f"verified: triton {prov.version} imports from {prov.file},"
            f" built against LLVM {str(prov.llvm_revision)[:12]} ({prov.llvm_syspath})"
        )
    if report.up_to_date:
        out.print("Everything is up to date: nothing to do.")


def _render_plan(report: SetupReport, plan: str, llvm: str | None) -> None:
    """Under --dry-run: the plan line, what is not resolved, and the commands a real run would execute."""
    from rich.markup import escape

    from bootstrap.core import ui

    out = ui.out()
    out.print(escape(plan))
    if llvm:
        out.print(escape(f"# llvm: {llvm}"))
    if report.unresolved is not None:
        pins = "the error below" if report.failure is not None else report.unresolved.pins
        out.print(f"# not resolved: pins: {escape(pins)}")
        out.print(f"# not resolved: steps: {escape(report.unresolved.steps)}")
        out.print(
            f"# tritondev setup --dry-run: target Python {escape(report.target_python)}; the rest of the "
            "plan needs the pins"
        )
        return
    out.print(f"# tritondev setup --dry-run: {len(report.commands)} command(s) a real run would execute")
    step = None
    for command in report.commands:
        if command.step != step:
            step = command.step
            out.print(f"# {step}")
        out.print(escape(command.render()))
    out.print("# steps: " + ", ".join(f"{o.name} ({o.status.value})" for o in report.steps))


def describe_llvm(llvm: LlvmReport | None) -> str | None:
    """Where LLVM comes from when it is not built here, in one line: the package (URL, sha256,
    destination) or the tree; None for a source build (the plan line names its folder)."""
    from bootstrap.core.redact import redact
    from bootstrap.pipeline.llvm.source import PrebuiltPackage, UserTree

    if llvm is None:
        return None
    source = llvm.source
    why = f" (auto: {source.auto.why})" if source.auto is not None else ""
    if isinstance(source, PrebuiltPackage):
        sha = source.package.sha256 or "none published (unverified)"
        return f"prebuilt package {redact(source.package.url)} (sha256 {sha}) -> {llvm.build}{why}"
    if isinstance(source, UserTree):
        tree = source.tree
        return f"--llvm {tree.path} (LLVM {tree.revision or 'at an unknown revision'})"
    return f"built from source in {llvm.build}{why}" if why else None
