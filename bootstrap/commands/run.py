"""`tritondev run [--dump-ir] -- COMMAND ...`: run a command with tritondev's environment."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.options import DumpIr, DumpKernel

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.outcome import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Command = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Argument(help="The command and its arguments (after --)."),
]
DumpDir = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--dump-dir",
        help="Where --dump-ir writes one file per pass and index.txt/index.json; must be new or empty "
        "(default: <workspace>/dumps/<timestamp>/).",
    ),
]

Reproducer = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--reproducer",
        help="Have Triton write its MLIR crash reproducers into this folder "
        "(TRITON_REPRODUCER_PATH, with TRITON_ALWAYS_COMPILE=1); replay one with "
        "`tritondev opt --reproducer`.",
    ),
]


@options.command("backend", "workspace", "python", "dry_run", "verbose", reads_target=True)
def run(
    ctx: AppContext,
    command: Command = None,
    dump_ir: DumpIr = False,
    dump_dir: DumpDir = None,
    reproducer: Reproducer = None,
    kernel: DumpKernel = None,
) -> Outcome:
    """Run COMMAND with the variables `tritondev env` prints; its exit status is passed through.

    tritondev's own options come before `--`, the command and its options after it.

    The target environment's folder comes first on PATH, so `python` in COMMAND is the target's.

    With --dump-ir it also turns on Triton's IR dumps and takes them out of the command's output.

    Each dump becomes one numbered file per pass (0001-<pass>.mlir ..., the final .ptx/.amdgcn).

    index.txt and index.json list the passes in order; the command's own output is still shown.
    """
    from bootstrap.commands.options import dump_kernel
    from bootstrap.core.outcome import ExitStatus
    from bootstrap.ir.capture import USAGE, RunRequest, run_command

    if not command:
        from bootstrap.core.errors import UsageError

        raise UsageError("no command to run", fix=USAGE)
    request = RunRequest(tuple(command), dump_ir, dump_dir, reproducer, dump_kernel(dump_ir, kernel))
    return ExitStatus(run_command(ctx, request))


def register(app: typer.Typer) -> None:
    # tritondev's own options come first; the command starts after `--` (or at its first word), and an
    # option before it that run does not know is a usage error with "did you mean".
    app.command("run", cls=options.OwnOptionsThenCommand)(run)
