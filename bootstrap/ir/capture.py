"""`tritondev run`: a user's command with the workspace's variables, and with --dump-ir Triton's IR dumps
taken out of its output into one file per pass (run_command)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core import ui
from bootstrap.core.context import AppContext
from bootstrap.core.errors import ConfigError, ToolMissing, UsageError
from bootstrap.env.exports import collect_variables, target_variables
from bootstrap.ir.reproducers import describe, reproducer_variables
from bootstrap.ir.split import Counter, DumpSection, DumpSplitter, DumpWriter, IndexRow

USAGE = "tritondev run [--python PATH] [--dump-ir] -- python my_kernel.py"


@dataclass(frozen=True)
class RunRequest:
    command: tuple[str, ...]
    dump_ir: bool = False
    dump_dir: Path | None = None
    reproducer: Path | None = None  # the folder Triton writes its crash reproducers into
    kernel: str | None = None  # with dump_ir: only this kernel's passes
    # For a command run on another command's behalf (`repro capture`): more variables, a folder first on
    # PYTHONPATH, and the command's stdout sent to stderr (where tritondev's stdout holds one JSON document).
    variables: Mapping[str, str | None] = field(default_factory=dict)
    pythonpath_first: Path | None = None
    output_to_stderr: bool = False


def run_command(ctx: AppContext, request: RunRequest) -> int:
    """Run the command attached to this terminal with the env file's variables, the reproducer's and
    the target's folder first on PATH; its exit status (128+N for a signal N)."""
    values: dict[str, str | None] = dict(
        collect_variables(
            ctx.workspace.env_file, dump_ir=request.dump_ir, backend=ctx.settings.backend, kernel=request.kernel
        )
    )
    if request.reproducer is not None:
        # Checked before the target is chosen, so that a bad folder is the first and only line said.
        values.update(reproducer_variables(request.reproducer, dry_run=ctx.dry_run))
        ui.info(describe(request.reproducer))
    values.update(target_variables(ctx))
    values.update(request.variables)
    if request.pythonpath_first is not None:
        rest = values["PYTHONPATH"] if "PYTHONPATH" in values else os.environ.get("PYTHONPATH")
        values["PYTHONPATH"] = os.pathsep.join([str(request.pythonpath_first), *([rest] if rest else [])])
    argv = _checked_command(list(request.command), values.get("PATH"))
    if request.dump_ir and _interpreted(values):
        ui.warn(
            "TRITON_INTERPRET=1 is set: Triton's interpreter compiles nothing, so there is no IR to dump; "
            "unset TRITON_INTERPRET for this run to see the compiler's passes"
        )
    if not request.dump_ir:
        # The program's stdout to stderr, as it wrote it (a JSON document of tritondev's own owns stdout).
        to_stderr = ui.ChildOutput("stderr", verbatim=True).text if request.output_to_stderr else None
        return ctx.runner.run_attached(argv, step="run", env=values, on_stdout=to_stderr).returncode
    return _run_with_dumps(ctx, argv, values, request.dump_dir)


def _checked_command(command: list[str], path: str | None) -> list[str]:
    """The command to run, or a UsageError/ToolMissing naming what is wrong with it and how to fix it.

    path: the PATH the command will run with, where it differs from ours.
    """
    program = command[0]
    if program.startswith("-"):
        raise UsageError(
            f"tritondev run has no option {program}",
            fix=f"put the command and its options after `--`: {USAGE} (see tritondev run --help)",
        )
    if not program.strip():
        raise UsageError("the command to run is empty (an empty first word after --)", fix=USAGE)
    if os.sep not in program:
        if shutil.which(program, path=path) is None:
            raise ToolMissing(
                f"command '{program}' is not on PATH",
                fix=f"install it, give its full path, or check the spelling: {USAGE}",
            )
        return list(command)
    if not os.path.exists(program):
        raise ToolMissing(f"{program} does not exist", fix=f"give the path of a program: {USAGE}")
    if os.path.isdir(program):
        raise UsageError(f"{program} is a folder, not a program", fix=f"give the path of a program: {USAGE}")
    if not os.access(program, os.X_OK):
        raise UsageError(
            f"{program} is not executable",
            fix=f"make it executable (chmod +x {program}) or run it through its interpreter, "
            f"e.g. tritondev run -- python {program}",
        )
    return list(command)


def _interpreted(values: dict[str, str | None]) -> bool:
    """TRITON_INTERPRET on in the command's environment (ours, or the env file's)."""
    value = values["TRITON_INTERPRET"] if "TRITON_INTERPRET" in values else os.environ.get("TRITON_INTERPRET")
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _default_dump_dir(workspace_root: Path) -> Path:
    base = workspace_root / "dumps" / time.strftime("%Y%m%d-%H%M%S")
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def _empty_dump_folder(ctx: AppContext, dump_dir: Path | None) -> Path:
    """--dump-dir, or a fresh <workspace>/dumps/<timestamp>/; a folder that holds something is refused."""
    folder = (dump_dir or _default_dump_dir(ctx.workspace.root)).absolute()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UsageError(
            f"dump folder {folder} already exists and is not empty",
            fix="choose a new --dump-dir (or leave it out for a fresh <workspace>/dumps/<timestamp>/)",
        )
    return folder


def _run_with_dumps(ctx: AppContext, command: list[str], values: dict[str, str | None], dump_dir: Path | None) -> int:
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
        why = (
            "TRITON_INTERPRET=1 ran the kernels in the interpreter, which compiles nothing"
            if _interpreted(values)
            else "the command compiled no Triton kernel, or its dumps went elsewhere"
        )
        ui.warn(f"no IR dump was captured (index written to {folder}): {why}")
    return returncode


def _capture_dumps(
    ctx: AppContext, command: list[str], values: dict[str, str | None], folder: Path
) -> tuple[int, list[IndexRow]]:
    """Run the command with its output split into one file per pass under `folder` (and index.txt,
    index.json); what is not a dump goes on to the terminal. Returns its exit status and the index rows."""
    writer = DumpWriter(folder)
    counter = Counter()
    splitters = {"out": DumpSplitter(counter), "err": DumpSplitter(counter)}
    # What is not a dump goes on as the command wrote it; a reader that went away (`| head`) drops the
    # rest of that stream, and the dump is still captured.
    echoes = {"out": ui.ChildOutput("stdout", verbatim=True), "err": ui.ChildOutput("stderr", verbatim=True)}

    def handle(which: str, events: list[DumpSection | str]) -> None:
        for event in events:
            if isinstance(event, DumpSection):
                writer.write(event)
            else:
                echoes[which].text(event)

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
