"""`tritondev opt`: one pass of an IR dump (or a crash reproducer) replayed with the workspace's triton-opt,
built first when it is missing (run_opt)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.context import AppContext
from bootstrap.core.errors import ExternalError, ToolMissing, UsageError
from bootstrap.core.process.runner import PlannedCommand
from bootstrap.ir.dumps import latest_dump, load_dump, require_passes
from bootstrap.ir.passes import PassIndex
from bootstrap.ir.replay import (
    Replay,
    command_for,
    debug_types_for,
    default_folder,
    reproducer_passes,
    run_replay,
    select_stage,
    tail,
    write_inputs,
)
from bootstrap.ir.tritonopt import build_triton_opt
from bootstrap.pipeline.built.state import read_state
from bootstrap.pipeline.built.triton_build import TritonBuild, find_build, runtime_env


@dataclass(frozen=True)
class OptRequest:
    pass_name: str | None
    dump: Path | None = None
    kernel: str | None = None
    occurrence: int = 1
    debug: bool = False
    reproducer: Path | None = None
    out: Path | None = None


@dataclass(frozen=True)
class OptResult:
    replay: Replay
    dump_path: Path | None  # None for a reproducer
    commands: list[PlannedCommand] = field(default_factory=list)  # the triton-opt build, when one ran
    dry_run: bool = False

    @property
    def failure(self) -> ExternalError | None:
        """triton-opt's own failure, raised once the outcome is shown."""
        if self.replay.returncode in (None, 0):
            return None
        return ExternalError(
            f"triton-opt failed with exit status {self.replay.returncode} (its messages: {self.replay.stderr})",
            fix=f"re-run it by hand: {self.replay.shell_command()}",
            details=tail(self.replay.stderr),
        )


def run_opt(ctx: AppContext, request: OptRequest) -> OptResult:
    """Write the pass's input as input.mlir, build triton-opt when missing and (not under --dry-run) run
    it: UsageError for a bad request, ToolMissing when there is still no triton-opt."""
    if request.reproducer is not None:
        if request.dump is not None or request.kernel is not None or request.occurrence != 1:
            raise UsageError(
                "--reproducer replays a file: --dump, --kernel and --occurrence do not go with it",
                fix=f"tritondev opt --reproducer {request.reproducer}",
            )
        replay = _from_reproducer(ctx, request.reproducer, request.pass_name, request.debug, request.out)
        dump_path = None
    else:
        if not request.pass_name:
            raise UsageError("no PASS given", fix="tritondev opt tritongpu-coalesce (or --reproducer FILE)")
        replay, dump_path = _from_dump(
            ctx, request.pass_name, request.dump, request.kernel, request.occurrence, request.debug, request.out
        )
    build = _build_or_none(ctx)
    if build is None:
        replay.notes.append(
            "no Triton build in this workspace yet (`tritondev setup` builds one): the command "
            "names the triton-opt on PATH"
        )
    else:
        replay.env = runtime_env(build, os.environ)
    replay.command = command_for(replay, build.triton_opt if build else Path("triton-opt"))
    commands: list[PlannedCommand] = []
    if build is not None and not build.triton_opt.is_file():
        commands = build_triton_opt(ctx).commands
    write_inputs(replay, dump_path)
    if not ctx.dry_run:
        if build is None or not build.triton_opt.is_file():
            raise ToolMissing(
                f"no triton-opt at {build.triton_opt if build else 'the workspace build'} after building it",
                fix="run `tritondev build --target triton-opt` and read its log",
            )
        run_replay(replay, ctx.runner)
    return OptResult(replay, dump_path, commands, ctx.dry_run)


def _from_dump(
    ctx: AppContext,
    pass_name: str,
    dump: Path | None,
    kernel: str | None,
    occurrence: int,
    debug: bool,
    out: Path | None,
) -> tuple[Replay, Path]:

    dump_path = dump if dump is not None else latest_dump(ctx.workspace.root)
    loaded = load_dump(dump_path)
    require_passes(loaded, "given with --dump" if dump is not None else "the newest in the workspace's dumps/")
    chosen = loaded.pick_kernel(kernel)
    index = _index(ctx)
    stage, after, runs = select_stage(loaded, chosen, pass_name, occurrence, index)
    folder = out if out is not None else default_folder(dump_path, stage)
    replay = Replay(
        folder, folder / "input.mlir", stage=stage, after=after, occurrence=occurrence, occurrences=runs, kernel=chosen
    )
    if debug:
        replay.debug_types = debug_types_for([stage.key], index, replay.notes, replay.sources)
    return replay, dump_path


def _from_reproducer(ctx: AppContext, reproducer: Path, pass_name: str | None, debug: bool, out: Path | None) -> Replay:

    passes = reproducer_passes(reproducer)
    folder = out if out is not None else reproducer.with_name(reproducer.name + ".replay")
    replay = Replay(folder, reproducer, passes=passes)
    if debug:
        wanted = [pass_name.lstrip("-")] if pass_name else passes
        replay.debug_types = debug_types_for(wanted, _index(ctx), replay.notes, replay.sources)
    return replay


def _build_or_none(ctx: AppContext) -> TritonBuild | None:
    """The workspace's Triton build; under --dry-run None when there is none (a real run needs one)."""
    try:
        return find_build(ctx.workspace.root, ctx.workspace.state)
    except UsageError:
        if ctx.dry_run:
            return None
        raise


def _index(ctx: AppContext) -> PassIndex:
    """The passes declared in the workspace's Triton checkout (and MLIR's, for canonicalize, cse, ...)."""
    state = read_state(ctx.workspace.state)
    triton = state.triton_src if state is not None else ctx.workspace.triton_src
    roots = [p for p in (triton, ctx.workspace.llvm_src / "mlir") if p.is_dir()]
    return PassIndex(roots)
