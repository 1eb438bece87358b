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
    from bootstrap.ir.passes import PassIndex
    from bootstrap.ir.replay import Replay
    from bootstrap.pipeline.setup.built import TritonBuild

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
PassName = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(metavar="PASS", help="The pass's command-line name, e.g. tritongpu-coalesce (its TableGen name "
                   "works too). With --reproducer: only the pass whose DEBUG_TYPE --debug selects."),
]
DumpPath = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--dump", help="A folder `tritondev run --dump-ir` wrote, or a file of MLIR_ENABLE_DUMP=1 output "
                 "(default: the workspace's latest dump)."),
]
Kernel = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="The kernel, when the dump holds several."),
]
Occurrence = Annotated[
    int, typer.Option("--occurrence", min=1, help="Which run of the pass, when it ran more than once (1: the first).")
]
Debug = Annotated[bool, options.flag("--debug", help="Add -debug-only=<DEBUG_TYPE>, read from the pass's source in the "
                                     "workspace's checkout.")]
Reproducer = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--reproducer", help="Replay this MLIR reproducer (TRITON_REPRODUCER_PATH's file) with "
                 "`triton-opt FILE --run-reproducer` instead."),
]
Out = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--out", help="Folder for input.mlir, output.mlir and the diffs (default: <dump>/opt/NNNN-<pass>/, "
                 "or <reproducer>.replay/)."),
]


@options.command("workspace", "dry_run", "json", "verbose", writes_logs=True)
def opt(ctx: AppContext, pass_name: PassName = None, dump: DumpPath = None, kernel: Kernel = None,
        occurrence: Occurrence = 1, debug: Debug = False, reproducer: Reproducer = None, out: Out = None) -> None:
    """Replay one pass of an IR dump with the workspace's triton-opt, or a crash reproducer.

    Writes the IR from just before PASS as a standalone input.mlir, runs `triton-opt input.mlir -PASS -o output.mlir` (built with `ninja triton-opt` when missing) and prints the exact command and the IR diff across the pass. --dry-run writes input.mlir (and the dump's own diff across the pass) and runs nothing.

    Exit codes: 0 ok; 2 no dump, unknown pass or kernel, malformed dump, no Triton build; 3 triton-opt missing after the build; 4 triton-opt (or its build) failed.
    """  # noqa: E501
    import os

    from bootstrap.commands.opt.render import render, to_json
    from bootstrap.core import ui
    from bootstrap.core.errors import ExternalError, ToolMissing, UsageError
    from bootstrap.ir.replay import command_for, run_replay, tail, write_inputs
    from bootstrap.pipeline.setup.built import runtime_env

    ctx = ctx.with_runner(ctx.runner.quiet(ctx.json))
    if reproducer is not None:
        if dump is not None or kernel is not None or occurrence != 1:
            raise UsageError("--reproducer replays a file: --dump, --kernel and --occurrence do not go with it",
                             fix=f"tritondev opt --reproducer {reproducer}")
        replay, dump_path = _from_reproducer(ctx, reproducer, pass_name, debug, out), None
    else:
        if not pass_name:
            raise UsageError("no PASS given", fix="tritondev opt tritongpu-coalesce (or --reproducer FILE)")
        replay, dump_path = _from_dump(ctx, pass_name, dump, kernel, occurrence, debug, out)
    build = _build_or_none(ctx)
    if build is None:
        replay.notes.append("no Triton build in this workspace yet (`tritondev setup` builds one): the command "
                            "names the triton-opt on PATH")
    else:
        replay.env = runtime_env(build, os.environ)
    replay.command = command_for(replay, build.triton_opt if build else Path("triton-opt"))
    commands: list[dict[str, object]] = []
    if build is not None and not build.triton_opt.is_file():
        commands = _build_triton_opt(ctx)
    write_inputs(replay, dump_path)
    if not ctx.dry_run:
        if build is None or not build.triton_opt.is_file():
            raise ToolMissing(f"no triton-opt at {build.triton_opt if build else 'the workspace build'} after "
                              "building it", fix="run `tritondev build --target triton-opt` and read its log")
        run_replay(replay, ctx.runner)
    if ctx.json:
        ui.emit_json(to_json(replay, dump_path, commands, ctx.dry_run))
    else:
        render(replay, dump_path, ctx.dry_run)
    if replay.returncode not in (None, 0):
        raise ExternalError(
            f"triton-opt failed with exit status {replay.returncode} (its messages: {replay.stderr})",
            fix=f"re-run it by hand: {replay.shell_command()}",
            details=tail(replay.stderr),
            reported=ctx.json,
        )


def register(app: typer.Typer) -> None:
    app.command("opt")(opt)


def _from_dump(ctx: AppContext, pass_name: str, dump: Path | None, kernel: str | None, occurrence: int,
               debug: bool, out: Path | None) -> tuple[Replay, Path]:
    from bootstrap.ir.dumps import latest_dump, load_dump, require_passes
    from bootstrap.ir.replay import Replay, debug_types_for, default_folder, select_stage

    dump_path = dump if dump is not None else latest_dump(ctx.workspace.root)
    loaded = load_dump(dump_path)
    require_passes(loaded, "given with --dump" if dump is not None else "the newest in the workspace's dumps/")
    chosen = loaded.pick_kernel(kernel)
    index = _index(ctx)
    stage, after, runs = select_stage(loaded, chosen, pass_name, occurrence, index)
    folder = out if out is not None else default_folder(dump_path, stage)
    replay = Replay(folder, folder / "input.mlir", stage=stage, after=after, occurrence=occurrence,
                      occurrences=runs, kernel=chosen)
    if debug:
        replay.debug_types = debug_types_for([stage.key], index, replay.notes, replay.sources)
    return replay, dump_path


def _from_reproducer(ctx: AppContext, reproducer: Path, pass_name: str | None, debug: bool,
                     out: Path | None) -> Replay:
    from bootstrap.ir.replay import Replay, debug_types_for, reproducer_passes

    passes = reproducer_passes(reproducer)
    folder = out if out is not None else reproducer.with_name(reproducer.name + ".replay")
    replay = Replay(folder, reproducer, passes=passes)
    if debug:
        wanted = [pass_name.lstrip("-")] if pass_name else passes
        replay.debug_types = debug_types_for(wanted, _index(ctx), replay.notes, replay.sources)
    return replay


def _build_or_none(ctx: AppContext) -> TritonBuild | None:
    """The workspace's Triton build; under --dry-run None when there is none (a real run needs one)."""
    from bootstrap.core.errors import UsageError
    from bootstrap.pipeline.setup.built import find_build

    try:
        return find_build(ctx.workspace.root, ctx.workspace.state)
    except UsageError:
        if ctx.dry_run:
            return None
        raise


def _index(ctx: AppContext) -> PassIndex:
    """The passes declared in the workspace's Triton checkout (and MLIR's, for canonicalize, cse, ...)."""
    from bootstrap.ir.passes import PassIndex
    from bootstrap.pipeline.setup.state import read_state

    state = read_state(ctx.workspace.state)
    triton = state.triton_src if state is not None else ctx.workspace.triton_src
    roots = [p for p in (triton, ctx.workspace.llvm_src / "mlir") if p.is_dir()]
    return PassIndex(roots)


def _build_triton_opt(ctx: AppContext) -> list[dict[str, object]]:
    """`tritondev build --target triton-opt` (shown, not run, under --dry-run); the commands it ran."""
    from bootstrap.core import ui
    from bootstrap.pipeline.setup.build import run_build

    if ctx.dry_run:
        result = run_build(ctx, "triton-opt", ui.err())
    else:
        with ctx.workspace.lock("build"):
            result = run_build(ctx, "triton-opt", ui.err())
    commands = result.get("commands", [])
    return list(commands) if isinstance(commands, list) else []
