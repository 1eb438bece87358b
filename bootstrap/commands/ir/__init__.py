"""`tritondev ir diff DUMP_A DUMP_B`: the first pass whose output differs between two IR dumps."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.ir.dumps import Dump

DumpA = Annotated[Path, typer.Argument(metavar="DUMP_A", help="A folder `tritondev run --dump-ir` wrote, or a file "
                                       "of MLIR_ENABLE_DUMP=1 output.")]
DumpB = Annotated[Path, typer.Argument(metavar="DUMP_B", help="The dump to compare it with.")]
Kernel = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="The kernel to compare, when the dumps hold several."),
]
KeepLocations = Annotated[bool, options.flag("--keep-locations", help="Compare loc(...) too (left out by default: "
                                             "they change when the kernel's file does, not when the compiler does).")]
KeepNames = Annotated[bool, options.flag("--keep-names", help="Compare SSA value names too (by default values are "
                                         "renamed in order: with line info Triton names them after the kernel's "
                                         "variables, without it, as --dump-ir runs, it numbers them).")]


@options.command("workspace", "json", "verbose")
def diff(ctx: AppContext, dump_a: DumpA, dump_b: DumpB, kernel: Kernel = None,
         keep_locations: KeepLocations = False, keep_names: KeepNames = False) -> None:
    """Name the first pass whose output differs between two dumps of one kernel, with that pass's diff.

    Compares the IR before each MLIR pass, then the final assembly; the two pipelines are lined up by pass, so passes one Triton version added or dropped do not shift the rest. Locations are left out unless --keep-locations, and values are renamed in order unless --keep-names, so that a --dump-ir dump and a plain MLIR_ENABLE_DUMP=1 capture of one compile compare equal.

    Exit codes: 0 compared (the same or not); 2 a dump missing or malformed, or the kernel not in both.
    """  # noqa: E501
    from bootstrap.ir.diff import first_difference
    from bootstrap.ir.dumps import load_dump

    a, b = load_dump(dump_a), load_dump(dump_b)
    name_a, name_b = _kernels(a, b, kernel)
    result = first_difference(a.of_kernel(name_a), b.of_kernel(name_b), keep_locations=keep_locations,
                              keep_names=keep_names)
    if ctx.json:
        from bootstrap.core import ui

        ui.emit_json({"a": str(dump_a), "b": str(dump_b), "kernel": {"a": name_a, "b": name_b},
                      "keep_locations": keep_locations, "keep_names": keep_names, **result.to_json()})
        return
    _render(result, name_a, name_b)


def register(app: typer.Typer) -> None:
    ir_app = typer.Typer(help="Compare IR dumps of `tritondev run --dump-ir`.", no_args_is_help=True)
    ir_app.command("diff")(diff)
    app.add_typer(ir_app, name="ir")


def _kernels(a: Dump, b: Dump, wanted: str | None) -> tuple[str | None, str | None]:
    """The kernel compared in each dump: --kernel (in both), else the one they share, else their only ones."""
    from bootstrap.ir.dumps import DumpError

    if wanted is not None:
        return a.pick_kernel(wanted), b.pick_kernel(wanted)
    kernels_a, kernels_b = a.kernels(), b.kernels()
    if len(kernels_a) <= 1 and len(kernels_b) <= 1:
        return (kernels_a[0] if kernels_a else None), (kernels_b[0] if kernels_b else None)
    shared = [k for k in kernels_a if k in kernels_b]
    if len(shared) == 1:
        return shared[0], shared[0]
    raise DumpError(
        f"the dumps hold several kernels (a: {', '.join(kernels_a)}; b: {', '.join(kernels_b)})",
        fix=f"name the one to compare with --kernel, e.g. --kernel {(shared or kernels_a)[0]}",
    )


def _render(result: object, name_a: str | None, name_b: str | None) -> None:
    from rich.markup import escape

    from bootstrap.core import ui
    from bootstrap.ir.diff import Difference

    assert isinstance(result, Difference)
    out = ui.out()
    if name_a != name_b:
        ui.warn(f"comparing kernel {name_a} of a with kernel {name_b} of b")
    ui.note(result.compared)
    colour = "green" if result.verdict == "same" else "yellow"
    out.print(f"[bold {colour}]{escape(result.verdict)}[/bold {colour}]: {escape(result.summary)}")
    for line in result.pipeline_differences:
        out.print(f"  pipelines: {escape(line)}")
    if result.diff:
        out.print(escape(result.diff.rstrip()))
