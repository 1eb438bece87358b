"""The bisect's loop: the commit the search chooses is built and its command run, the verdict recorded in
the journal as it comes, until the first bad commit is known. At the end, or when a step fails or is
interrupted, both checkouts and the starting build are put back (`bisect reset` does the same for a
bisect stopped before); then the bisect is forgotten and only its logs and result.json stay.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ExternalError
from bootstrap.core.io.writes import replace_json
from bootstrap.git.commit_range import drop_refs, pin_at
from bootstrap.pipeline.bisect.builds import BuildFolders
from bootstrap.pipeline.bisect.checks import STEP, Check, setup_state
from bootstrap.pipeline.bisect.journal import BisectStep, Journal, remove_journal, write_journal
from bootstrap.pipeline.bisect.outcome import BisectOutcome
from bootstrap.pipeline.bisect.restore import restore
from bootstrap.pipeline.bisect.search import SearchState, Verdict, search
from bootstrap.pipeline.bisect.steps import (
    COMMAND_STEP,
    INTERRUPTED,
    BuildFailed,
    LlvmStepper,
    TritonStepper,
    llvm_built,
    run_check,
    verdict_of,
)
from bootstrap.pipeline.bisect.worktree import WorktreeStepper, adopted_clone, worktree_path

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext


def drive(
    ctx: AppContext, journal: Journal, check: Check, links: Mapping[str, str], console: Console | None
) -> BisectOutcome:
    """Test the commit the search chooses, one step at a time, each verdict recorded as it comes, until the
    first bad commit is known; then put everything back and forget the bisect (its result stays in the logs)."""
    shas = [c.sha for c in journal.range.commits]
    said: set[str] = set()  # setup's first lines (--llvm auto's choice), said once for the whole bisect
    stepper = _stepper(ctx, journal, links, console, said) if not search(shas, journal.verdicts).done else None
    try:
        state = search(shas, journal.verdicts)
        while state.next is not None and stepper is not None:
            if journal.restored:
                journal = dataclasses.replace(journal, restored=False)
                write_journal(ctx.workspace.state, journal)
            journal = journal.with_step(_one_step(ctx, journal, stepper, check, state, console))
            write_journal(ctx.workspace.state, journal)
            state = search(shas, journal.verdicts)
    except BaseException as exc:
        if not journal.restored:
            _say(
                console,
                "interrupted: " if isinstance(exc, KeyboardInterrupt) else "stopped: ",
                "putting the checkouts and the starting build back (Ctrl-C again leaves that to "
                "`tritondev bisect reset`)",
            )
            put_back(ctx, journal, links, console, said)
        raise
    journal = put_back(ctx, journal, links, console, said)
    clone, worktree = adopted_clone(ctx), worktree_path(ctx)
    outcome = BisectOutcome(
        journal,
        state,
        ctx.workspace.root,
        clone=clone,
        worktree=worktree,
        worktree_left=clone is not None and os.path.lexists(worktree),
    )
    replace_json(ctx.workspace.logs / STEP / "result.json", outcome.to_json())
    forget(ctx, journal)
    return outcome


def _stepper(
    ctx: AppContext, journal: Journal, links: Mapping[str, str], console: Console | None, said: set[str]
) -> TritonStepper | LlvmStepper | WorktreeStepper:
    clone = adopted_clone(ctx)
    if journal.kind == "triton" and clone is not None:
        return WorktreeStepper(ctx, clone, links, console, said)
    if journal.kind == "triton":
        r = journal.range
        state = setup_state(ctx)
        stepper = TritonStepper(
            ctx, links, console, said, lambda sha: pin_at([c.sha for c in r.commits], r.good, r.pins, sha)
        )
        stepper.folders.begin(state.llvm_pin, state.llvm_build)  # the starting build's LLVM, whatever step runs first
        return stepper
    return LlvmStepper(ctx, journal.start["triton"].commit, links, console)


def _one_step(
    ctx: AppContext,
    journal: Journal,
    stepper: TritonStepper | LlvmStepper | WorktreeStepper,
    check: Check,
    state: SearchState,
    console: Console | None,
) -> BisectStep:
    sha = state.next
    assert sha is not None
    number = len(journal.steps) + 1
    subject = journal.range.subject(sha)
    _say(
        console,
        f"[bold]step {number} of about {number - 1 + state.steps_left}[/bold] ",
        f"({len(state.candidates)} commits left): {sha[:12]} {subject}",
    )
    folder = ctx.workspace.logs / STEP / f"{number:02d}-{sha[:12]}"
    runner = ctx.runner.logging_to(folder).recording().quiet(not ctx.verbose)
    started = time.monotonic()
    exit_code: int | None = None
    try:
        built = stepper.build(sha, runner)
    except BuildFailed as failed:
        verdict = Verdict.BAD if journal.build_failure == "bad" else Verdict.SKIP
        reason, rebuilt = failed.reason, llvm_built(runner)
    else:
        exit_code = run_check(runner, check.command, check.cwd, check.env)
        verdict = _judge(exit_code, folder / f"{COMMAND_STEP}.log")
        reason, rebuilt = f"exit {exit_code}" + (f"; {built.note}" if built.note else ""), built.llvm_rebuilt
    llvm = (
        sha
        if journal.kind == "llvm"
        else pin_at([c.sha for c in journal.range.commits], journal.range.good, journal.range.pins, sha)
    )
    seconds = time.monotonic() - started
    where = "LLVM rebuilt" if rebuilt else "LLVM reused"
    _say(console, f"  -> [bold]{verdict.value}[/bold] ", f"({reason}) in {seconds:.1f} s, {where}")
    return BisectStep(number, sha, subject, verdict, seconds, rebuilt, llvm, exit_code, reason, str(folder))


def _judge(exit_code: int, log: Path) -> Verdict:
    """The command's verdict; Ctrl-C and an aborting exit status stop the bisect (nothing is recorded)."""
    if exit_code == INTERRUPTED:
        raise KeyboardInterrupt
    verdict = verdict_of(exit_code)
    if verdict is None:
        raise ExternalError(
            f"the command exited {exit_code}, which aborts a bisect (as in `git bisect run`)",
            fix=f"make it exit 0 (good), 1-127 (bad) or 125 (skip), then `tritondev bisect resume`; "
            f"its output is in {log}",
        )
    return verdict


def put_back(
    ctx: AppContext, journal: Journal, links: Mapping[str, str], console: Console | None, said: set[str] | None = None
) -> Journal:
    """The checkouts and the starting build back as the bisect found them, once: the journal records it."""
    if journal.restored:
        return journal
    runner = ctx.runner.logging_to(ctx.workspace.logs / STEP / "restore").recording().quiet(not ctx.verbose)
    clone = adopted_clone(ctx)
    moved = [f"src/{n} to {s.commit[:12]}" for n, s in journal.start.items() if n != "triton" or clone is None]
    _say(
        console,
        "restoring: ",
        ", ".join([*moved, f"your clone {clone} installed again" if clone else "the starting build"]),
    )
    restore(ctx, runner, {n: (s.commit, s.branch) for n, s in journal.start.items()}, links, console, said)
    journal = dataclasses.replace(journal, restored=True)
    write_journal(ctx.workspace.state, journal)
    return journal


def forget(ctx: AppContext, journal: Journal) -> None:
    """The bisect's own build folders, refs and journal gone (the checkouts are back already)."""
    BuildFolders(ctx.workspace.state).discard()  # build folders parked per LLVM: the bisect's own, gone
    clone = adopted_clone(ctx)
    for name, start in journal.start.items():
        if name != "triton" or clone is None:  # your clone got no ref of the bisect's
            drop_refs(ctx.runner, ctx.workspace.src / name, start.pin_refs)
    remove_journal(ctx.workspace.state)


def _say(console: Console | None, head: str, text: str) -> None:
    if console is None:
        return
    from rich.markup import escape

    console.print(head + escape(text))
