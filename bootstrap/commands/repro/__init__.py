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
    from bootstrap.core.outcome import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Command = Annotated[Optional[list[str]], typer.Argument(help="The command and its arguments (after --).")]  # noqa: UP045
KernelGlob = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="Record only kernels whose name matches this glob ('triton_per_*'); default: all."),
]
SaveIo = Annotated[
    bool,
    options.flag(
        "--save-io",
        help="Also keep each recorded launch's tensors before and after "
        "it (up to --io-limit), so wrong results and data-dependent failures replay.",
    ),
]
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
KernelRef = Annotated[
    str, typer.Argument(metavar="KERNEL", help="A kernel name or glob, its number in `repro ls`, or a record id.")
]
MakeOut = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--out",
        help="The repro folder: new, empty, or one `repro make` wrote (default: <capture>/repros/<record id>/).",
    ),
]
Check = Annotated[
    bool,
    options.flag("--check", help="Run the repro in the target environment and say whether it reproduces the symptom."),
]


@options.command("workspace", "python", "json", "dry_run", "verbose", reads_target=True)
def capture(
    ctx: AppContext,
    command: Command = None,
    kernel: KernelGlob = None,
    save_io: SaveIo = False,
    io_limit: IoLimit = None,
    out: CaptureOut = None,
) -> Outcome:
    """Run COMMAND as `tritondev run` does, recording each distinct Triton kernel launch and failed compile.

    Per kernel: its source made standalone, the specialization, grid, options, config and arguments.

    The capture hook travels in for this run only (a sitecustomize.py first on PYTHONPATH).

    The command's exit status is passed through.
    """
    from bootstrap.commands.repro.render import Captured
    from bootstrap.core.errors import UsageError
    from bootstrap.kernels.cache.units import parse_size
    from bootstrap.repro.capture import DEFAULT_IO_LIMIT, CaptureRequest, run_capture

    if not command:
        raise UsageError("no command to capture", fix="tritondev repro capture -- python train.py")
    limit = parse_size(io_limit) if io_limit is not None else DEFAULT_IO_LIMIT
    return Captured(run_capture(ctx, CaptureRequest(tuple(command), kernel, save_io, limit, out)))


@options.command("workspace", "json")
def ls(ctx: AppContext, capture_dir: CaptureDir = None) -> Outcome:
    """List the kernels of a capture: number, kernel, status, launches, grid and shapes, config, saved tensors."""
    from bootstrap.commands.repro.render import CaptureListing
    from bootstrap.repro.store import captures_root, open_capture

    return CaptureListing(open_capture(ctx.workspace.root, capture_dir), captures_root(ctx.workspace.root))


@options.command("workspace", "json")
def show(ctx: AppContext, kernel: KernelRef, capture_dir: CaptureDir = None) -> Outcome:
    """Show one captured kernel: specialization, launch, arguments, saved tensors, error, files."""
    from bootstrap.commands.repro.render import RecordShown
    from bootstrap.repro.store import open_record

    return RecordShown(*open_record(ctx.workspace.root, capture_dir, kernel))


@options.command("workspace", "python", "json", "dry_run", "verbose", reads_target=True)
def make(
    ctx: AppContext, kernel: KernelRef, capture_dir: CaptureDir = None, out: MakeOut = None, check: Check = False
) -> Outcome:
    """Write a standalone repro folder for one captured kernel: kernel.py, repro.py (and recorded tensors).

    repro.py launches the kernel through Triton directly at the recorded specialization and configuration,
    and exits 0 (good), 1 (the symptom reproduces) or 125 (cannot run with this Triton), as `git bisect run`
    reads them. --check runs it in the target environment.
    """
    from bootstrap.commands.repro.render import ReproMade
    from bootstrap.repro.make import make_repro
    from bootstrap.repro.store import open_capture

    return ReproMade(make_repro(ctx, open_capture(ctx.workspace.root, capture_dir), kernel, out, check), ctx.dry_run)


def register(app: typer.Typer) -> None:
    repro_app = typer.Typer(
        help="From a failing program to a standalone kernel repro: capture, list, show, make.", no_args_is_help=True
    )
    # capture's own options come first; the command starts after `--` (or at its first word).
    repro_app.command("capture", cls=options.OwnOptionsThenCommand)(capture)
    repro_app.command("ls")(ls)
    repro_app.command("show")(show)
    repro_app.command("make")(make)
    app.add_typer(repro_app, name="repro")
