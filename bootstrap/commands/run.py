"""`tritondev run [--dump-ir] -- COMMAND ...`: run a command with tritondev's environment."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.options import DumpIr, DumpKernel

if TYPE_CHECKING:
    from typing import TextIO

    from bootstrap.core.context import AppContext
    from bootstrap.ir.split import IndexRow

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
    typer.Option("--reproducer", help="Have Triton write its MLIR crash reproducers into this folder "
                 "(TRITON_REPRODUCER_PATH, with TRITON_ALWAYS_COMPILE=1); replay one with "
                 "`tritondev opt --reproducer`."),
]


@options.command("backend", "workspace", "python", "dry_run", "verbose", reads_target=True)
def run(ctx: AppContext, command: Command = None, dump_ir: DumpIr = False, dump_dir: DumpDir = None,
        reproducer: Reproducer = None, kernel: DumpKernel = None) -> None:
    """Run COMMAND with the variables `tritondev env` prints; its exit status is passed through.

    tritondev's own options come before `--`, the command and its options after it.

    The target environment's folder comes first on PATH, so `python` in COMMAND is the target's.

    With --dump-ir it also turns on Triton's IR dumps and takes them out of the command's output.

    Each dump becomes one numbered file per pass (0001-<pass>.mlir ..., the final .ptx/.amdgcn).

    index.txt and index.json list the passes in order; the command's own output is still shown.
    """
    from bootstrap.commands.options import dump_kernel
    from bootstrap.core import ui
    from bootstrap.env.exports import collect_variables, target_variables

    if not command:
        from bootstrap.core.errors import UsageError

        raise UsageError("no command to run", fix=_USAGE)
    values: dict[str, str | None] = dict(
        collect_variables(ctx.workspace.env_file, dump_ir=dump_ir, backend=ctx.settings.backend,
                          kernel=dump_kernel(dump_ir, kernel))
    )
    if reproducer is not None:
        # Checked before the target is chosen, so that a bad folder is the first and only line said.
        from bootstrap.ir.reproducers import describe, reproducer_variables

        values.update(reproducer_variables(reproducer, dry_run=ctx.dry_run))
        ui.info(describe(reproducer))
    values.update(target_variables(ctx))
    argv = _checked_command(command, values.get("PATH"))
    if dump_ir and _interpreted(values):
        ui.warn("TRITON_INTERPRET=1 is set: Triton's interpreter compiles nothing, so there is no IR to dump; "
                "unset TRITON_INTERPRET for this run to see the compiler's passes")
    if not dump_ir:
        result = ctx.runner.run_attached(argv, step="run", env=values)
        raise typer.Exit(result.returncode)
    raise typer.Exit(_run_with_dumps(ctx, argv, values, dump_dir))


def register(app: typer.Typer) -> None:
    # tritondev's own options come first; the command starts after `--` (or at its first word), and an
    # option before it that run does not know is a usage error with "did you mean".
    app.command("run", cls=options.OwnOptionsThenCommand)(run)


_USAGE = "tritondev run [--python PATH] [--dump-ir] -- python my_kernel.py"


def _checked_command(command: list[str], path: str | None) -> list[str]:
    """The command to run, or a UsageError/ToolMissing naming what is wrong with it and how to fix it.

    path: the PATH the command will run with, where it differs from ours.
    """
    import os
    import shutil

    from bootstrap.core.errors import ToolMissing, UsageError

    program = command[0]
    if program.startswith("-"):
        raise UsageError(f"tritondev run has no option {program}",
                         fix=f"put the command and its options after `--`: {_USAGE} (see tritondev run --help)")
    if not program.strip():
        raise UsageError("the command to run is empty (an empty first word after --)", fix=_USAGE)
    if os.sep not in program:
        if shutil.which(program, path=path) is None:
            raise ToolMissing(f"command '{program}' is not on PATH",
                              fix=f"install it, give its full path, or check the spelling: {_USAGE}")
        return list(command)
    if not os.path.exists(program):
        raise ToolMissing(f"{program} does not exist", fix=f"give the path of a program: {_USAGE}")
    if os.path.isdir(program):
        raise UsageError(f"{program} is a folder, not a program", fix=f"give the path of a program: {_USAGE}")
    if not os.access(program, os.X_OK):
        raise UsageError(
            f"{program} is not executable",
            fix=f"make it executable (chmod +x {program}) or run it through its interpreter, "
            f"e.g. tritondev run -- python {program}",
        )
    return list(command)


def _interpreted(values: dict[str, str | None]) -> bool:
    """TRITON_INTERPRET on in the command's environment (ours, or the env file's)."""
    import os

    value = values["TRITON_INTERPRET"] if "TRITON_INTERPRET" in values else os.environ.get("TRITON_INTERPRET")
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _default_dump_dir(workspace_root: Path) -> Path:
    import time

    base = workspace_root / "dumps" / time.strftime("%Y%m%d-%H%M%S")
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def _empty_dump_folder(ctx: AppContext, dump_dir: Path | None) -> Path:
    """--dump-dir, or a fresh <workspace>/dumps/<timestamp>/; a folder that holds something is refused."""
    from bootstrap.core.errors import UsageError

    folder = (dump_dir or _default_dump_dir(ctx.workspace.root)).absolute()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UsageError(
            f"dump folder {folder} already exists and is not empty",
            fix="choose a new --dump-dir (or leave it out for a fresh <workspace>/dumps/<timestamp>/)",
        )
    return folder


def _run_with_dumps(
    ctx: AppContext, command: list[str], values: dict[str, str | None], dump_dir: Path | None
) -> int:
    from bootstrap.core import ui
    from bootstrap.core.errors import ConfigError

    folder = _empty_dump_folder(ctx, dump_dir)
    # Python buffers stdout in a pipe; unbuffered, the NVPTX/AMDGCN dumps (stdout) and the MLIR
    # dumps (stderr) arrive in the order they were printed, so the pass numbers follow the pipeline.
    values["PYTHONUNBUFFERED"] = "1"
    values["MLIR_DUMP_PATH"] = None  # would send the MLIR dump to a file instead of stderr
    if ctx.dry_run:
        ctx.runner.run_attached(command, step="run", env=values)
        ui.info(f"would write one file per pass and index.txt/index.json to {folder}")
        return 0
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create dump folder {folder}: {exc.strerror}", fix="choose a writable --dump-dir"
        ) from None
    returncode, rows = _capture_dumps(ctx, command, values, folder)
    if rows:
        kernels = sorted({r.kernel for r in rows if r.kernel})
        ui.info(
            f"{len(rows)} IR dumps ({len(kernels)} kernel{'s' if len(kernels) != 1 else ''}: "
            f"{', '.join(kernels) or '-'}) written to {folder}; "
            f"index: {folder / 'index.txt'}"
        )
    else:
        why = ("TRITON_INTERPRET=1 ran the kernels in the interpreter, which compiles nothing"
               if _interpreted(values) else "the command compiled no Triton kernel, or its dumps went elsewhere")
        ui.warn(f"no IR dump was captured (index written to {folder}): {why}")
    return returncode


def _capture_dumps(
    ctx: AppContext, command: list[str], values: dict[str, str | None], folder: Path
) -> tuple[int, list[IndexRow]]:
    """Run the command with its output split into one file per pass under `folder` (and index.txt,
    index.json); what is not a dump goes on to the terminal. Returns its exit status and the index rows."""
    import sys

    from bootstrap.ir.split import Counter, DumpSection, DumpSplitter, DumpWriter

    writer = DumpWriter(folder)
    counter = Counter()
    splitters = {"out": DumpSplitter(counter), "err": DumpSplitter(counter)}
    streams: dict[str, TextIO | None] = {"out": sys.stdout, "err": sys.stderr}

    def handle(which: str, events: list[DumpSection | str]) -> None:
        for event in events:
            if isinstance(event, DumpSection):
                writer.write(event)
                continue
            stream = streams[which]
            if stream is None:
                continue
            try:
                stream.flush()
                stream.buffer.write(event.encode("utf-8", "surrogateescape"))
                stream.buffer.flush()
            except BrokenPipeError:
                # The reader went away (`| head`): keep capturing the dump, drop the rest of this stream.
                streams[which] = None

    returncode: int | None = None
    try:
        result = ctx.runner.run_attached(
            command,
            step="run",
            env=values,
            on_stdout=lambda line: handle("out", splitters["out"].feed(line)),
            on_stderr=lambda line: handle("err", splitters["err"].feed(line)),
        )
        returncode = result.returncode
    finally:
        for which, splitter in splitters.items():
            handle(which, splitter.close())
        writer.write_index(command, returncode)
    return result.returncode, writer.rows
