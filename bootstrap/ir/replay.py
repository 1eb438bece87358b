"""`tritondev opt`: replay one pass of a dump, or a reproducer, with the workspace's triton-opt.

From a dump: the IR from just before the pass is written as a standalone file (input.mlir), and
`triton-opt input.mlir -<pass> [-debug-only=<DEBUG_TYPE>] -o output.mlir` runs on it. From a
reproducer: `triton-opt FILE --run-reproducer -o output.mlir`. The files go into one folder per
replay, next to the dump (or the reproducer), and are replaced by the next replay of the same pass:
edit the pass, `tritondev build --target triton-opt`, replay again.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import NotRegularFile, read_regular
from bootstrap.core.io import writes
from bootstrap.core.suggest import closest
from bootstrap.ir.dumps import MAX_DUMP_BYTES, Dump, Stage
from bootstrap.ir.header import split_pass_argument
from bootstrap.ir.passes import PassIndex, PassSource
from bootstrap.ir.split import safe_name
from bootstrap.ir.text import comparable, unified_diff
from bootstrap.ir.tritonopt import opt_command, pass_arguments, pipeline_passes, replay_command, reproducer_pipeline

if TYPE_CHECKING:
    from bootstrap.core.process.runner import Runner


@dataclass
class Replay:
    """One replay: what it reads, the command, and the files it writes."""

    folder: Path
    input: Path
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    stage: Stage | None = None  # the dumped IR the input comes from (None: a reproducer)
    after: Stage | None = None  # the dumped IR after the pass (the input of the next one)
    occurrence: int = 1
    occurrences: int = 1
    kernel: str | None = None
    passes: list[str] = field(default_factory=list)  # a reproducer's pipeline
    debug_types: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sources: list[PassSource] = field(default_factory=list)
    returncode: int | None = None

    @property
    def output(self) -> Path:
        return self.folder / "output.mlir"

    @property
    def stderr(self) -> Path:
        return self.folder / "triton-opt.stderr"

    @property
    def pass_diff(self) -> Path:
        return self.folder / "pass.diff"

    @property
    def replay_diff(self) -> Path:
        return self.folder / "replay.diff"

    @property
    def pass_diff_written(self) -> Path | None:
        """The dump's diff across the pass, when this replay wrote one (the dump has IR after the pass)."""
        return self.pass_diff if self.after is not None and self.pass_diff.is_file() else None

    def shell_command(self) -> str:
        """The command as it can be pasted into a shell."""
        return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in self.env.items()), shlex.join(self.command)])


def select_stage(
    dump: Dump, kernel: str | None, wanted: str, occurrence: int, index: PassIndex
) -> tuple[Stage, Stage | None, int]:
    """The dumped IR before run `occurrence` of pass `wanted` of `kernel`, the IR after it, and how many
    times the pass ran; a UsageError naming the passes that did run otherwise."""
    stages = dump.of_kernel(kernel)
    name = split_pass_argument(wanted.lstrip("-"))[0] or wanted
    runs = [i for i, s in enumerate(stages) if s.is_pass_input and name in (s.arg, s.name)]
    ran = list(dict.fromkeys(s.key for s in stages if s.is_pass_input))
    whose = f" for kernel {kernel}" if kernel else ""
    if not runs:
        if name in index.declared() or any(name in (s.arg, s.name) for s in dump.stages):
            more = ", ..." if len(ran) > 8 else ""
            raise UsageError(
                f"pass '{name}' did not run{whose} in the dump {dump.path}",
                fix=f"replay one that ran: {', '.join(ran[:8]) or 'none'}{more}",
            )
        close = closest(name, ran) or closest(name, index.arguments())
        hint = f" (did you mean '{close}'?)" if close else ""
        raise UsageError(
            f"unknown pass '{name}'{hint}",
            fix=f"use {close}" if close else f"the passes that ran are listed in {dump.path}",
        )
    if not 1 <= occurrence <= len(runs):
        raise UsageError(
            f"{name} ran {len(runs)} time(s){whose}; --occurrence {occurrence} is not one of them",
            fix=f"use --occurrence 1 to {len(runs)}",
        )
    at = runs[occurrence - 1]
    after = next((s for s in stages[at + 1 :] if s.is_pass_input), None)
    return stages[at], after, len(runs)


def default_folder(dump_path: Path, stage: Stage) -> Path:
    """<dump>/opt/NNNN-<pass>/: the pass's name comes from the dump, so it is made one safe name part."""
    base = dump_path / "opt" if dump_path.is_dir() else dump_path.with_name(dump_path.name + ".opt")
    return base / f"{stage.number:04d}-{safe_name(stage.key)}"


def input_text(stage: Stage, dump_path: Path) -> str:
    """The IR before the pass as a standalone file triton-opt reads (the dump's body, as printed)."""
    where = ", ".join(
        x
        for x in (f"kernel {stage.kernel}" if stage.kernel else "", f"target {stage.target}" if stage.target else "")
        if x
    )
    return (
        f"// The IR before {stage.label()}, from {dump_path} ({stage.origin}){', ' if where else ''}{where}.\n"
        f"{stage.body.rstrip()}\n"
    )


def debug_types_for(names: Sequence[str], index: PassIndex, notes: list[str], sources: list[PassSource]) -> list[str]:
    """The DEBUG_TYPEs `-debug-only=` needs for these passes, read from their sources; what is missing is
    said in `notes` (passes alike in one note: a reproducer's pipeline names dozens)."""
    types: list[str] = []
    undeclared: list[str] = []
    silent: list[PassSource] = []
    for name in dict.fromkeys(names):
        source = index.find(name)
        if source is None:
            undeclared.append(name)
            continue
        sources.append(source)
        if source.debug_type is None:
            silent.append(source)
            continue
        if source.debug_type != name:
            notes.append(
                f"{name} logs under DEBUG_TYPE '{source.debug_type}' ({source.debug_type_at}), not under its own name"
            )
        types.append(source.debug_type)
    if undeclared:
        notes.append(
            f"not declared in any *Passes.td of the workspace's checkouts, so no DEBUG_TYPE: {', '.join(undeclared)}"
        )
    if len(silent) == 1:
        source = silent[0]
        where = (
            f"in {source.cpp}" if source.cpp else f"(no source file defines GEN_PASS_DEF_{source.definition.upper()})"
        )
        helpers = ", ".join(f"{t} ({f})" for t, f in source.nearby)
        notes.append(
            f"{source.argument} defines no DEBUG_TYPE {where}: -debug-only prints nothing from it"
            + (f"; its helpers log under: {helpers}" if helpers else "")
        )
    elif silent:
        notes.append(f"no DEBUG_TYPE in the sources of: {', '.join(s.argument for s in silent)}")
    return list(dict.fromkeys(types))


def reproducer_passes(path: Path) -> list[str]:
    """The passes of a reproducer file; a UsageError when it is not one."""
    try:
        text = read_regular(path, limit=MAX_DUMP_BYTES).decode("utf-8", "replace")
    except NotRegularFile:
        raise UsageError(
            f"the reproducer {path} is not a regular file",
            fix="give a file TRITON_REPRODUCER_PATH wrote (tritondev run --reproducer DIR)",
        ) from None
    except OSError as exc:
        why = "it does not exist" if not path.exists() else exc.strerror
        raise UsageError(
            f"cannot read the reproducer {path}: {why}",
            fix="give a file TRITON_REPRODUCER_PATH wrote (tritondev run --reproducer DIR)",
        ) from None
    pipeline = reproducer_pipeline(text)
    if pipeline is None:
        raise UsageError(
            f"{path} is not an MLIR reproducer: it has no mlir_reproducer resource with a pipeline",
            fix="give a file TRITON_REPRODUCER_PATH wrote (tritondev run --reproducer DIR)",
        )
    return pipeline_passes(pipeline)


def command_for(replay: Replay, triton_opt: Path) -> list[str]:
    """The triton-opt command of a replay: the pass on input.mlir, or the reproducer's pipeline."""
    if replay.stage is None:
        return replay_command(triton_opt, replay.input, replay.output, replay.debug_types)
    return opt_command(triton_opt, replay.input, replay.output, pass_arguments(replay.stage), replay.debug_types)


def tail(path: Path, lines: int = 20) -> str | None:
    """The last lines of a file, None when it is empty or unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").rstrip()
    except OSError:
        return None
    return "\n".join(text.splitlines()[-lines:]) or None


def prepare_folder(replay: Replay) -> None:
    """The replay folder made, and each file a replay writes there free to be written: checked before
    anything is written, so that a bad --out (a file, a folder named like a replay file) changes nothing."""
    fix = "give --out a folder of its own (it is made when missing)"
    if replay.folder.exists() and not replay.folder.is_dir():
        raise UsageError(f"{replay.folder} is not a folder", fix=fix)
    for path in (replay.input, replay.pass_diff, replay.output, replay.stderr, replay.replay_diff):
        if path.parent == replay.folder and writes.describe(path) is not None:
            raise UsageError(f"{path} is in the way: a replay writes a file there", fix=fix)
    try:
        replay.folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make the replay folder {replay.folder}: {exc.strerror}", fix=fix) from None


def run_replay(replay: Replay, runner: Runner) -> None:
    """Run triton-opt; write its stderr and the diff of its output against its input."""
    prepare_folder(replay)
    for stale in (replay.output, replay.stderr, replay.replay_diff):
        stale.unlink(missing_ok=True)
    # Not echoed: the command is shown with the result, ready to paste.
    result = runner.quiet().run(replay.command, step="triton-opt", check=False, env=dict(replay.env))
    replay.returncode = result.returncode
    _write(replay.stderr, result.stderr)
    if result.returncode == 0 and replay.output.is_file():
        produced = replay.output.read_bytes().decode("utf-8", "surrogateescape")
        given = replay.input.read_bytes().decode("utf-8", "surrogateescape")
        _write(
            replay.replay_diff,
            unified_diff(
                comparable(given, "mlir", False), comparable(produced, "mlir", False), "input.mlir", "output.mlir"
            ),
        )


def write_inputs(replay: Replay, dump_path: Path | None) -> None:
    """The input file, and the dump's own diff across the pass, into the replay's folder."""
    if replay.stage is None or dump_path is None:
        return
    prepare_folder(replay)
    _write(replay.input, input_text(replay.stage, dump_path))
    if replay.after is not None:
        before, after = replay.stage, replay.after
        _write(
            replay.pass_diff,
            unified_diff(
                comparable(before.body, "mlir", False),
                comparable(after.body, "mlir", False),
                f"a/{before.origin}",
                f"b/{after.origin}",
            ),
        )
    # Without IR after the pass there is no diff to write; a pass.diff already there is left alone
    # (with --out it may be the user's) and is not shown as this pass's (pass_diff_written).


def _write(path: Path, text: str) -> None:
    writes.replace_text(path, text, verbatim=True)
