"""`tritondev ir diff DUMP_A DUMP_B`: the first pass whose output differs between two IR dumps; `tritondev ir view
PATH [PATH_B]`: one self-contained HTML page of a kernel's passes (or of two dumps side by side)."""

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


ViewPath = Annotated[Path, typer.Argument(metavar="PATH", help="A folder `tritondev run --dump-ir` wrote, a file of "
                                          "MLIR_ENABLE_DUMP=1 output, or a folder `tritondev compile --out` wrote.")]
ViewPathB = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Argument(metavar="[PATH_B]", help="A second dump: both side by side, the first pass whose output "
                   "differs selected (as `ir diff` names it)."),
]
ViewOut = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--out", help="The HTML file to write (default: ir-view.html in PATH's folder, or PATH.html beside "
                 "a dump file; with PATH_B, ir-view-vs-<PATH_B>.html)."),
]
ViewOpen = Annotated[bool, options.flag("--open", help="Open the page with the desktop's browser ($BROWSER, "
                                        "xdg-open, macOS open); where there is none, say so.")]


@options.command("workspace", "json", "verbose")
def view(ctx: AppContext, path: ViewPath, path_b: ViewPathB = None, kernel: Kernel = None, out: ViewOut = None,
         open_page: ViewOpen = False) -> None:
    """Write one self-contained HTML page of a kernel's compiler passes, and print its path.

    The page shows each pass as changed or unchanged with the size of its change, its IR and its diff (unified or side by side), a search across all passes, the kernel's Python with each line's ops (where the IR has line info), and the resource summary of a compile --out folder. It loads nothing from the network: it works on a cluster node and as an attachment to an issue.

    Exit codes: 0 written; 2 a path that is no dump or compile folder, a kernel not in it, an --out that is a folder or a link.
    """  # noqa: E501
    from bootstrap.core import ui
    from bootstrap.ir.view.write import write_view

    result = write_view(path, path_b, kernel, out)
    opened = _open(ctx, result.out) if open_page else None
    if ctx.json:
        ui.emit_json({**result.to_json(), "opened": opened})
        return
    for note in result.notes:
        ui.note(note)
    from rich.text import Text

    ui.out().print(Text(str(result.out)), soft_wrap=True)


def _open(ctx: AppContext, page: Path) -> bool:
    import os

    from bootstrap.core import ui
    from bootstrap.ir.view.opener import find_opener, open_page

    opener = find_opener(os.environ, ctx.runner.which)
    if isinstance(opener, str):
        ui.warn(f"not opened: {opener}; open {page} in a browser")
        return False
    status = open_page(ctx.runner, opener, page)
    if status != 0:
        ui.warn(f"{opener.argv[0]} ({opener.why}) exited with status {status}; open {page} in a browser")
    return status == 0


def register(app: typer.Typer) -> None:
    ir_app = typer.Typer(help="Compare and view IR dumps of `tritondev run --dump-ir` and `tritondev compile --out`.",
                         no_args_is_help=True)
    ir_app.command("diff")(diff)
    ir_app.command("view")(view)
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
