"""`tritondev opt`'s output: the files, the command to re-run by hand, the diff across the pass."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import TritondevError
from bootstrap.core.outcome import Outcome
from bootstrap.core.process.command_record import PlannedCommand
from bootstrap.ir.opt import OptResult
from bootstrap.ir.replay import Replay, tail


@dataclass(frozen=True)
class OptOutcome(Outcome):
    """The files, the command to re-run by hand, the diff across the pass; triton-opt's failure after it."""

    result: OptResult

    def to_json(self) -> dict[str, object]:
        return to_json(self.result.replay, self.result.dump_path, self.result.commands, self.result.dry_run)

    def render(self) -> None:
        render(self.result.replay, self.result.dump_path, self.result.dry_run)

    @property
    def failure(self) -> TritondevError | None:
        return self.result.failure


def _shown_diff(replay: Replay, dry_run: bool) -> Path | None:
    """The replay's own diff once triton-opt ran; the dump's diff across the pass before that."""
    if not dry_run and replay.returncode == 0 and replay.replay_diff.is_file():
        return replay.replay_diff
    return replay.pass_diff_written


def to_json(replay: Replay, dump_path: Path | None, commands: list[PlannedCommand], dry_run: bool) -> dict[str, object]:
    stage = replay.stage
    shown = _shown_diff(replay, dry_run)
    return {
        "dump": str(dump_path) if dump_path else None,
        "reproducer": None if stage else str(replay.input),
        "kernel": replay.kernel,
        "pass": {
            "argument": stage.arg,
            "name": stage.name,
            "options": stage.options,
            "op": stage.op,
            "number": stage.number,
            "file": stage.origin,
            "target": stage.target,
            "occurrence": replay.occurrence,
            "occurrences": replay.occurrences,
        }
        if stage
        else None,
        "pipeline": replay.passes,
        "input": str(replay.input),
        "command": replay.command,
        "env": replay.env,
        "shell": replay.shell_command(),
        "output": str(replay.output),
        "stderr": str(replay.stderr),
        "stderr_tail": tail(replay.stderr) if replay.returncode is not None else None,
        "pass_diff": str(replay.pass_diff_written) if replay.pass_diff_written else None,
        "replay_diff": str(replay.replay_diff) if replay.replay_diff.is_file() else None,
        "diff": str(shown) if shown else None,
        "debug_types": replay.debug_types,
        "sources": [s.to_json() for s in replay.sources],
        "notes": replay.notes,
        "build": [c.to_json() for c in commands],
        "dry_run": dry_run,
        "ran": replay.returncode is not None,
        "returncode": replay.returncode,
    }


def render(replay: Replay, dump_path: Path | None, dry_run: bool) -> None:
    from rich.markup import escape

    from bootstrap.core import ui

    out = ui.out()
    stage = replay.stage
    if stage is not None:
        runs = f", run {replay.occurrence} of {replay.occurrences}" if replay.occurrences > 1 else ""
        where = ", ".join(x for x in (replay.kernel, stage.target) if x)
        out.print(
            f"[bold]{escape(stage.label())}[/bold]{escape(runs)} in {escape(str(dump_path))}"
            + (f" ({escape(where)})" if where else "")
        )
    else:
        out.print(f"[bold]reproducer[/bold] {escape(str(replay.input))}: {escape(', '.join(replay.passes))}")
    for note in replay.notes:
        ui.warn(note)
    out.print(f"  input   {escape(str(replay.input))}")
    if not dry_run:
        out.print(f"  output  {escape(str(replay.output))}")
        out.print(f"  stderr  {escape(str(replay.stderr))}")
    out.print(("would run: " if dry_run else "ran: ") + escape(replay.shell_command()))
    if replay.returncode not in (None, 0):
        return
    if not dry_run:
        debug = replay.stderr.read_text(encoding="utf-8", errors="replace") if replay.stderr.is_file() else ""
        if debug.strip():
            ui.err().print(escape(debug.rstrip()))
    shown = _shown_diff(replay, dry_run)
    if shown is None:
        out.print("[dim]no diff: the dump holds no IR after this pass[/dim]" if stage else "")
        return
    text = shown.read_text(encoding="utf-8", errors="replace")
    ran = shown == replay.replay_diff
    what = "triton-opt's output against its input" if ran else "the compile's IR across the pass"
    out.print(f"[dim]{escape(what)} ({escape(str(shown))}):[/dim]")
    out.print(escape(text.rstrip()) if text.strip() else "[dim](no change)[/dim]")
