"""`tritondev opt PASS`: replay one pass of an IR dump (or a reproducer) with the workspace's triton-opt.

render.py: its human and JSON output.
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
PassName = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(
        metavar="PASS",
        help="The pass's command-line name, e.g. tritongpu-coalesce (its TableGen name "
        "works too). With --reproducer: only the pass whose DEBUG_TYPE --debug selects.",
    ),
]
DumpPath = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--dump",
        help="A folder `tritondev run --dump-ir` wrote, or a file of MLIR_ENABLE_DUMP=1 output "
        "(default: the workspace's latest dump).",
    ),
]
Kernel = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="The kernel, when the dump holds several."),
]
Occurrence = Annotated[
    int, typer.Option("--occurrence", min=1, help="Which run of the pass, when it ran more than once (1: the first).")
]
Debug = Annotated[
    bool,
    options.flag(
        "--debug", help="Add -debug-only=<DEBUG_TYPE>, read from the pass's source in the workspace's checkout."
    ),
]
Reproducer = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--reproducer",
        help="Replay this MLIR reproducer (TRITON_REPRODUCER_PATH's file) with "
        "`triton-opt FILE --run-reproducer` instead.",
    ),
]
Out = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--out",
        help="Folder for input.mlir, output.mlir and the diffs (default: <dump>/opt/NNNN-<pass>/, "
        "or <reproducer>.replay/).",
    ),
]


@options.command("workspace", "dry_run", "json", "verbose", writes_logs=True, lock="exclusive", echo="text")
def opt(
    ctx: AppContext,
    pass_name: PassName = None,
    dump: DumpPath = None,
    kernel: Kernel = None,
    occurrence: Occurrence = 1,
    debug: Debug = False,
    reproducer: Reproducer = None,
    out: Out = None,
) -> Outcome:
    """Replay one pass of an IR dump with the workspace's triton-opt, or a crash reproducer.

    Writes the IR from just before PASS as a standalone input.mlir, runs `triton-opt input.mlir -PASS -o output.mlir` (built with `ninja triton-opt` when missing) and prints the exact command and the IR diff across the pass. --dry-run writes input.mlir (and the dump's own diff across the pass) and runs nothing.

    Exit codes: 0 ok; 2 no dump, unknown pass or kernel, malformed dump, no Triton build; 3 triton-opt missing after the build; 4 triton-opt (or its build) failed.
    """  # noqa: E501
    from bootstrap.commands.opt.render import OptOutcome
    from bootstrap.ir.opt import OptRequest, run_opt

    return OptOutcome(run_opt(ctx, OptRequest(pass_name, dump, kernel, occurrence, debug, reproducer, out)))


def register(app: typer.Typer) -> None:
    app.command("opt")(opt)
