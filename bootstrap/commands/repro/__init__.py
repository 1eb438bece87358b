"""`tritondev repro capture|ls|show|make`: from a failing program to a standalone kernel repro.

Options and the commands are here; render.py holds their human output.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Command = Annotated[Optional[list[str]], typer.Argument(help="The command and its arguments (after --).")]  # noqa: UP045
KernelGlob = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="Record only kernels whose name matches this glob ('triton_per_*'); default: all."),
]
SaveIo = Annotated[bool, options.flag("--save-io", help="Also keep each recorded launch's tensors before and after "
                                      "it (up to --io-limit), so wrong results and data-dependent failures replay.")]
IoLimit = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--io-limit", help="Most tensor bytes --save-io keeps per process (default 256M; 500M, 2G, ...)."),
]
CaptureOut = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--out", help="Capture folder, new or empty (default: <workspace>/repro/<timestamp>/)."),
]
CaptureDir = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--capture", help="The capture to read (default: the newest under <workspace>/repro/)."),
]
KernelRef = Annotated[str, typer.Argument(metavar="KERNEL",
                                          help="A kernel name or glob, its number in `repro ls`, or a record id.")]
MakeOut = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--out", help="The repro folder: new, empty, or one `repro make` wrote (default: "
                 "<capture>/repros/<record id>/)."),
]
Check = Annotated[bool, options.flag("--check", help="Run the repro in the target environment and say whether it "
                                     "reproduces the symptom.")]


@options.command("workspace", "python", "json", "dry_run", "verbose", reads_target=True)
def capture(ctx: AppContext, command: Command = None, kernel: KernelGlob = None, save_io: SaveIo = False,
            io_limit: IoLimit = None, out: CaptureOut = None) -> None:
    """Run COMMAND as `tritondev run` does, recording each distinct Triton kernel launch and failed compile.

    Per kernel: its source made standalone, the specialization, grid, options, config and arguments.

    The capture hook travels in for this run only (a sitecustomize.py first on PYTHONPATH).

    The command's exit status is passed through.
    """
    from bootstrap.commands.repro.render import print_capture
    from bootstrap.core import ui
    from bootstrap.core.errors import UsageError
    from bootstrap.kernels.cache.units import parse_size
    from bootstrap.repro.capture import DEFAULT_IO_LIMIT, CaptureRequest, run_capture

    if not command:
        raise UsageError("no command to capture", fix="tritondev repro capture -- python train.py")
    limit = parse_size(io_limit) if io_limit is not None else DEFAULT_IO_LIMIT
    report = run_capture(ctx, CaptureRequest(tuple(command), kernel, save_io, limit, out))
    if ctx.json:
        from bootstrap.commands.repro.render import capture_json

        ui.emit_json(capture_json(report))
    else:
        print_capture(report)
    raise typer.Exit(report.returncode)


@options.command("workspace", "json")
def ls(ctx: AppContext, capture_dir: CaptureDir = None) -> None:
    """List the kernels of a capture: number, kernel, status, launches, grid and shapes, config, saved tensors."""
    from bootstrap.commands.repro.render import listing_json, print_listing
    from bootstrap.core import ui
    from bootstrap.repro.store import captures_root, choose_capture, load_capture

    root = captures_root(ctx.workspace.root)
    capture_ = load_capture(choose_capture(root, capture_dir))
    if ctx.json:
        ui.emit_json(listing_json(capture_))
    else:
        print_listing(capture_, root)


@options.command("workspace", "json")
def show(ctx: AppContext, kernel: KernelRef, capture_dir: CaptureDir = None) -> None:
    """Show one captured kernel: specialization, launch, arguments, saved tensors, error, files."""
    from bootstrap.commands.repro.render import print_record, record_json
    from bootstrap.core import ui
    from bootstrap.repro.store import captures_root, choose_capture, load_capture, select

    capture_ = load_capture(choose_capture(captures_root(ctx.workspace.root), capture_dir))
    record = select(capture_.records, kernel)
    if ctx.json:
        ui.emit_json(record_json(capture_, record))
    else:
        print_record(capture_, record)


@options.command("workspace", "python", "json", "dry_run", "verbose", reads_target=True)
def make(ctx: AppContext, kernel: KernelRef, capture_dir: CaptureDir = None, out: MakeOut = None,
         check: Check = False) -> None:
    """Write a standalone repro folder for one captured kernel: kernel.py, repro.py (and recorded tensors).

    repro.py launches the kernel through Triton directly at the recorded specialization and configuration,
    and exits 0 (good), 1 (the symptom reproduces) or 125 (cannot run with this Triton), as `git bisect run`
    reads them. --check runs it in the target environment.
    """
    from bootstrap.commands.repro.render import make_json, print_make
    from bootstrap.core import ui
    from bootstrap.repro.make import make_repro
    from bootstrap.repro.store import captures_root, choose_capture, load_capture

    capture_ = load_capture(choose_capture(captures_root(ctx.workspace.root), capture_dir))
    report = make_repro(ctx, capture_, kernel, out, check)
    if ctx.json:
        ui.emit_json(make_json(ctx, report))
    else:
        print_make(ctx, report)
    if report.verdict is not None and report.verdict.reproduces is None:
        raise typer.Exit(4)


def register(app: typer.Typer) -> None:
    repro_app = typer.Typer(help="From a failing program to a standalone kernel repro: capture, list, show, make.",
                            no_args_is_help=True)
    # capture's own options come first; the command starts after `--` (or at its first word).
    repro_app.command("capture", cls=options.OwnOptionsThenCommand)(capture)
    repro_app.command("ls")(ls)
    repro_app.command("show")(show)
    repro_app.command("make")(make)
    app.add_typer(repro_app, name="repro")
