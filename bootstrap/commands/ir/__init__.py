"""`tritondev ir diff DUMP_A DUMP_B`: the first pass whose output differs between two IR dumps; `tritondev ir view
PATH [PATH_B]`: one self-contained HTML page of a kernel's passes (or of two dumps side by side)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.ir.compare import DumpComparison
    from bootstrap.ir.view.write import ViewPage

DumpA = Annotated[
    Path,
    typer.Argument(
        metavar="DUMP_A", help="A folder `tritondev run --dump-ir` wrote, or a file of MLIR_ENABLE_DUMP=1 output."
    ),
]
DumpB = Annotated[Path, typer.Argument(metavar="DUMP_B", help="The dump to compare it with.")]
Kernel = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="The kernel to compare, when the dumps hold several."),
]
KeepLocations = Annotated[
    bool,
    options.flag(
        "--keep-locations",
        help="Compare loc(...) too (left out by default: "
        "they change when the kernel's file does, not when the compiler does).",
    ),
]
KeepNames = Annotated[
    bool,
    options.flag(
        "--keep-names",
        help="Compare SSA value names too (by default values are "
        "renamed in order: with line info Triton names them after the kernel's "
        "variables, without it, as --dump-ir runs, it numbers them).",
    ),
]


@options.command("workspace", "json", "verbose")
def diff(
    ctx: AppContext,
    dump_a: DumpA,
    dump_b: DumpB,
    kernel: Kernel = None,
    keep_locations: KeepLocations = False,
    keep_names: KeepNames = False,
) -> Outcome:
    """Name the first pass whose output differs between two dumps of one kernel, with that pass's diff.

    Compares the IR before each MLIR pass, then the final assembly; the two pipelines are lined up by pass, so passes one Triton version added or dropped do not shift the rest. Locations are left out unless --keep-locations, and values are renamed in order unless --keep-names, so that a --dump-ir dump and a plain MLIR_ENABLE_DUMP=1 capture of one compile compare equal.

    Exit codes: 0 compared (the same or not); 2 a dump missing or malformed, or the kernel not in both.
    """  # noqa: E501
    from bootstrap.ir.compare import compare_dumps

    return Compared(compare_dumps(dump_a, dump_b, kernel, keep_locations=keep_locations, keep_names=keep_names))


@dataclass(frozen=True)
class Compared(Outcome):
    """`ir diff`: the verdict, what was compared, and the diff across the pass that differs first."""

    comparison: DumpComparison

    def to_json(self) -> dict[str, object]:
        return self.comparison.to_json()

    def render(self) -> None:
        from rich.markup import escape

        from bootstrap.core import ui

        found, out = self.comparison.difference, ui.out()
        if self.comparison.kernel_a != self.comparison.kernel_b:
            ui.warn(f"comparing kernel {self.comparison.kernel_a} of a with kernel {self.comparison.kernel_b} of b")
        ui.note(found.compared)
        colour = "green" if found.verdict == "same" else "yellow"
        out.print(f"[bold {colour}]{escape(found.verdict)}[/bold {colour}]: {escape(found.summary)}")
        for line in found.pipeline_differences:
            out.print(f"  pipelines: {escape(line)}")
        if found.diff:
            out.print(escape(found.diff.rstrip()))


ViewPath = Annotated[
    Path,
    typer.Argument(
        metavar="PATH",
        help="A folder `tritondev run --dump-ir` wrote, a file of "
        "MLIR_ENABLE_DUMP=1 output, or a folder `tritondev compile --out` wrote.",
    ),
]
ViewPathB = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Argument(
        metavar="[PATH_B]",
        help="A second dump: both side by side, the first pass whose output differs selected (as `ir diff` names it).",
    ),
]
ViewOut = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--out",
        help="The HTML file to write (default: ir-view.html in PATH's folder, or PATH.html beside "
        "a dump file; with PATH_B, ir-view-vs-<PATH_B>.html).",
    ),
]
ViewOpen = Annotated[
    bool,
    options.flag(
        "--open",
        help="Open the page with the desktop's browser ($BROWSER, xdg-open, macOS open); where there is none, say so.",
    ),
]


@options.command("workspace", "json", "verbose")
def view(
    ctx: AppContext,
    path: ViewPath,
    path_b: ViewPathB = None,
    kernel: Kernel = None,
    out: ViewOut = None,
    open_page: ViewOpen = False,
) -> Outcome:
    """Write one self-contained HTML page of a kernel's compiler passes, and print its path.

    The page shows each pass as changed or unchanged with the size of its change, its IR and its diff (unified or side by side), a search across all passes, the kernel's Python with each line's ops (where the IR has line info), and the resource summary of a compile --out folder. It loads nothing from the network: it works on a cluster node and as an attachment to an issue.

    Exit codes: 0 written; 2 a path that is no dump or compile folder, a kernel not in it, an --out that is a folder or a link.
    """  # noqa: E501
    from bootstrap.ir.view.write import open_view

    return Viewed(open_view(ctx, path, path_b, kernel, out, open_page=open_page))


@dataclass(frozen=True)
class Viewed(Outcome):
    """`ir view`: the page's path (and whether it was opened); notes on what it could not show."""

    page: ViewPage

    def to_json(self) -> dict[str, object]:
        return self.page.to_json()

    def render(self) -> None:
        from rich.text import Text

        from bootstrap.core import ui

        for note in self.page.result.notes:
            ui.note(note)
        ui.out().print(Text(str(self.page.result.out)), soft_wrap=True)


def register(app: typer.Typer) -> None:
    ir_app = typer.Typer(
        help="Compare and view IR dumps of `tritondev run --dump-ir` and `tritondev compile --out`.",
        no_args_is_help=True,
    )
    ir_app.command("diff")(diff)
    ir_app.command("view")(view)
    app.add_typer(ir_app, name="ir")
