"""`tritondev compile FILE.py::KERNEL`: cross-compile a kernel for any target, no GPU needed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext, ChosenTarget
    from bootstrap.core.errors import TritondevError
    from bootstrap.kernels.compile_report import CompileReport
    from bootstrap.kernels.usage import CudaResources, HipResources

Signature = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--signature",
        "-s",
        help='Types of the non-constexpr arguments, e.g. "x_ptr=*fp32,y_ptr=*fp32:16,n=i32" '
        "(types: i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 fp32 fp64 fp8e4nv fp8e5 ...; *T pointer, "
        "*kT read-only pointer, :16 multiple of 16), or in order as triton.tools.compile takes them: "
        '"*fp32:16, *fp32:16, i32, 1024" (a number is a constexpr value). Left out: the kernel\'s own '
        "argument list is printed.",
        show_default=False,
    ),
]
Constexpr = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--constexpr", "-c", help="A tl.constexpr value, NAME=VALUE (repeat)."),
]
Targets = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--target", "-t", help="cuda:<cc> (cuda:80, cuda:90, cuda:120) or hip:gfx<id> (hip:gfx942); repeat."),
]
Out = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--out", "-o", help="Output folder, one subfolder per target (default: ./triton-out/KERNEL)."),
]
NumWarps = Annotated[Optional[int], typer.Option("--num-warps", help="Warps per program.", min=1)]  # noqa: UP045
NumStages = Annotated[Optional[int], typer.Option("--num-stages", help="Software pipelining stages.", min=1)]  # noqa: UP045


Config = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--config",
        help="For an @triton.autotune kernel: compile its config N (from 0), its values and "
        "options; --constexpr and --num-warps/--num-stages still win.",
        min=0,
    ),
]
KernelRef = Annotated[str, typer.Argument(metavar="FILE.py::KERNEL", help="The @triton.jit kernel.")]


@options.command("python", "workspace", "json", "verbose", reads_target=True)
def compile_(
    ctx: AppContext,
    kernel_ref: KernelRef,
    signature: Signature = None,
    constexpr: Constexpr = None,
    target: Targets = None,
    out: Out = None,
    num_warps: NumWarps = None,
    num_stages: NumStages = None,
    config: Config = None,
) -> Outcome:
    """Cross-compile a kernel for each --target: every IR stage, SASS, and a resource summary.

    Writes OUT/<backend>-<arch>/KERNEL.{ttir,ttgir,llir,ptx,cubin,sass} (NVIDIA) or KERNEL.{ttir,ttgir,llir,amdgcn,hsaco} (AMD), plus metadata.json. Runs Triton in the target environment with a private Triton cache (unless TRITON_CACHE_DIR is set); needs no GPU. Triton's warnings are shown; -v also shows what the compiler printed.

    Exit codes: 0 ok; 2 bad signature, target or FILE::KERNEL; 3 triton missing in the target environment; 4 Triton failed to compile for a target.
    """  # noqa: E501
    from bootstrap.kernels.compiling import compile_kernel
    from bootstrap.kernels.signature import parse_constexprs, split_kernel_ref
    from bootstrap.kernels.targets import parse_targets

    file_text, kernel = split_kernel_ref(kernel_ref)
    targets = parse_targets(target or [])
    parse_constexprs(constexpr or [])  # a bad NAME=VALUE is named before anything runs
    values = {item.partition("=")[0].strip(): item.partition("=")[2].strip() for item in constexpr or []}
    out_dir = out if out is not None else Path("triton-out") / kernel
    run_options = {k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages)) if v is not None}
    report = compile_kernel(ctx, Path(file_text), kernel, signature, values, targets, out_dir, run_options, config)
    return CompileOutcome(report, ctx.chosen_target(), verbose=ctx.verbose)


def register(app: typer.Typer) -> None:
    app.command("compile")(compile_)


@dataclass(frozen=True)
class CompileOutcome(Outcome):
    """Each target's verdict, files and resources; the compiler's message of the first that failed."""

    report: CompileReport
    target: ChosenTarget
    verbose: bool

    def to_json(self) -> dict[str, object]:
        return {**self.report.to_json(), "target_python": self.target.to_json()}

    @property
    def failure(self) -> TritondevError | None:
        from bootstrap.core.errors import ExternalError
        from bootstrap.kernels.diagnostics import ptxas_fix

        report = self.report
        if not report.failed:
            return None
        first = report.failed[0]
        retry = next((r for r in report.retries if r.target == first.target.label), None)
        fix = ptxas_fix(first.tail) or "the compiler's message is above; fix the kernel or drop that --target"
        if retry is not None:
            fix = (
                f"no ptxas on this machine knows {retry.gpu_name} (Triton's: {retry.failed_with}; "
                f"tried {len(retry.tried)} more): install a CUDA toolkit whose ptxas knows it and point "
                f"{' / '.join(retry.variables)} at that ptxas (compile finds it by itself in CUDA_HOME or on "
                "PATH), or upgrade Triton"
            )
        return ExternalError(
            f"Triton failed to compile {report.kernel} for {', '.join(r.target.label for r in report.failed)}",
            fix=fix,
            details="\n".join(first.tail[-25:]) or None,
        )

    def render(self) -> None:
        from rich.markup import escape

        from bootstrap.core import ui
        from bootstrap.kernels.diagnostics import headline

        report, console = self.report, ui.out()
        console.print(
            f"[bold]{escape(report.kernel)}[/bold] from {escape(str(report.source))} "
            f"(triton {escape(report.triton_version)}, {report.seconds:.1f}s)"
        )
        chosen = report.autotune.chosen if report.autotune is not None else None
        if chosen is not None:
            console.print(f"  autotune config {escape(chosen.removeprefix('--config '))}")
        for result in report.results:
            if not result.ok or result.resources is None:
                why = f"{result.error}: {headline(result.tail)}"
                console.print(f"  [red]{result.target.label:<12} failed[/red] {escape(why)}")
                continue
            console.print(f"  [green]{result.target.label:<12}[/green] {escape(_resource_line(result.resources))}")
            stages = ", ".join(k for k in result.files if k != "metadata")
            console.print(f"  {'':<12} [dim]{escape(str(result.folder))} ({escape(stages)})[/dim]")
            if self.verbose:
                for line in result.output:
                    console.print(f"  {'':<12} [dim]| {escape(line)}[/dim]")
        self._notes()

    def _notes(self) -> None:
        from bootstrap.core import ui

        report = self.report
        users = sorted({r.sass_by for r in report.results if r.sass_by})
        if users:
            ui.note(f"SASS by {', '.join(users)}")
        for warning in report.warnings:
            ui.warn(f"while importing {report.source.name}: {warning}")
        for result in report.results:
            for note in result.notes:
                ui.note(f"{result.target.label}: {note}")
            for warning in result.warnings:
                ui.warn(f"{result.target.label}: {warning}")
        for retry in report.retries:
            for tried in retry.tried:
                ui.note(f"{retry.target}: tried {tried}")
            if retry.used:
                ui.info(
                    f"{retry.target}: to make Triton use {retry.used} for {retry.gpu_name} itself: "
                    + "; ".join(retry.exports)
                )


def _resource_line(res: CudaResources | HipResources) -> str:
    from bootstrap.kernels.usage import HipResources

    def show(value: int | None, unit: str = "") -> str:
        return "?" if value is None else f"{value}{unit}"

    if isinstance(res, HipResources):
        agprs = f"AGPRs {show(res.agprs)}  " if res.has_agprs else ""  # RDNA has none
        return (
            f"VGPRs {show(res.vgprs)}  SGPRs {show(res.sgprs)}  {agprs}"
            f"spills {show(res.vgpr_spills)} VGPR / {show(res.sgpr_spills)} SGPR  "
            f"scratch {show(res.scratch_bytes, ' B')}  occupancy {show(res.occupancy)}  "
            f"LDS {show(res.lds_bytes, ' B')}  threads {show(res.threads)}"
        )
    return (
        f"registers {show(res.registers)}  spills {show(res.spills)}  "
        f"shared {show(res.shared_bytes, ' B')}  threads {show(res.threads)}  "
        f"(warps {show(res.num_warps)}, stages {show(res.num_stages)})  "
        f"occupancy {show(res.occupancy_warps)}/{show(res.sm_max_warps)} warps per SM"
    )
