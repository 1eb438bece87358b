"""`tritondev bisect`: find the first bad Triton (or LLVM) commit for a command, in few rebuilds.

    checks (nothing changed) -> the range (bisect_range) -> journal -> steps (bisect_steps),
    each chosen by the pure search (bisect_search) -> restore -> result

The search is ours rather than `git bisect`'s: it is a pure function of the commit list and the
verdicts (unit-tested), so the journal (bisect_journal) alone says where a bisect stands, the
checkout holds no bisect state of git's, and a step can be anything (a setup run, an LLVM build)
without a script calling tritondev back from inside `git bisect run`.

Safety: a checkout with local changes stops the bisect before anything is changed (exit 6); the
workspace lock is held throughout; when the bisect ends, fails or is interrupted, both checkouts go
back to where they started and the starting build is installed again (setup's pipeline at the
starting commit), as `git bisect reset` would, while the journal keeps the verdicts so that the same
command (or `tritondev bisect resume`) goes on where it stopped.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ExternalError, UsageError, WorkspaceLocked
from bootstrap.core.io import writes
from bootstrap.core.io.writes import replace_json
from bootstrap.git.checkouts import URL_SETTINGS
from bootstrap.git.commit_range import (
    drop_refs,
    fetch_range,
    import_range,
    list_range,
    missing,
    pin_at,
    resolve,
    scratch_repository,
)
from bootstrap.git.moves import refuse_ignored_in_range
from bootstrap.pipeline.bisect.builds import BuildFolders
from bootstrap.pipeline.bisect.checks import STEP, Check, head_of, inconsistencies, refuse_dirty, setup_state, urls
from bootstrap.pipeline.bisect.journal import (
    BisectKind,
    BisectStep,
    BuildFailureMode,
    Journal,
    journal_path,
    read_journal,
    remove_journal,
    write_journal,
)
from bootstrap.pipeline.bisect.restore import ResetOutcome, Restored, restore, restored_of
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
from bootstrap.pipeline.bisect.worktree import (
    WorktreeStepper,
    adopted_clone,
    check_range_in_clone,
    local_commit,
    worktree_path,
)

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext

NAMES = {"triton": "triton", "llvm": "llvm-project"}  # bisect kind -> the checkout it moves


@dataclass(frozen=True)
class BisectRequest:
    kind: BisectKind
    good: str
    bad: str
    command: tuple[str, ...]
    build_failure: BuildFailureMode
    cwd: Path


@dataclass(frozen=True)
class BisectOutcome:
    journal: Journal
    state: SearchState
    workspace: Path
    dry_run: bool = False
    clone: Path | None = None  # your clone (--triton-src), bisected in a worktree of it
    worktree: Path | None = None  # that worktree
    worktree_left: bool = False  # still on disk after the end

    @property
    def restored(self) -> Restored | None:
        """What the end put back; None while the journal says the checkouts are still moved."""
        if not self.journal.restored:
            return None
        return restored_of(self.journal, self.clone, self.worktree, self.worktree_left)

    @property
    def llvm_builds(self) -> int:
        return sum(1 for s in self.journal.steps if s.llvm_rebuilt)

    def pin(self, sha: str) -> str | None:
        r = self.journal.range
        return pin_at([c.sha for c in r.commits], r.good, r.pins, sha)

    def parent_of(self, sha: str) -> str:
        shas = [c.sha for c in self.journal.range.commits]
        index = shas.index(sha)
        return shas[index - 1] if index > 0 else self.journal.range.good

    def to_json(self) -> dict[str, object]:
        j, first = self.journal, self.state.first_bad
        found: dict[str, object] | None = None
        if first is not None:
            found = {"commit": first, "subject": j.range.subject(first)}
            if j.kind == "triton":
                found.update(llvm_commit=self.pin(first), parent_llvm_commit=self.pin(self.parent_of(first)))
        return {
            "kind": j.kind, "workspace": str(self.workspace), "dry_run": self.dry_run,
            "good": j.range.good, "bad": j.range.bad, "good_ref": j.good_ref, "bad_ref": j.bad_ref,
            "command": list(j.command), "build_failure": j.build_failure, "range": len(j.range.commits),
            "first_bad": found, "candidates": [] if found else list(self.state.candidates),
            "next": self.state.next, "steps": [s.to_json() for s in j.steps], "llvm_builds": self.llvm_builds,
            "seconds": round(sum(s.seconds for s in j.steps), 3), "log_dir": str(self.workspace / "logs" / STEP),
            "restored": self.restored.to_json() if self.restored is not None else None,
        }


# -- the bisect --------------------------------------------------------------------------------------


def start(ctx: AppContext, request: BisectRequest, console: Console | None) -> BisectOutcome:
    """Check everything, then bisect (the caller holds the workspace lock unless --dry-run)."""
    check = Check.of(ctx, request.command, request.cwd)
    journal = read_journal(ctx.workspace.state)
    runner = ctx.runner.logging_to(None)
    checkouts = {name: ctx.workspace.src / name for name in NAMES.values()}
    if journal is not None:
        if journal.same_request(request.kind, request.good, request.bad, request.command, request.build_failure):
            if ctx.dry_run:
                return BisectOutcome(journal, search([c.sha for c in journal.range.commits], journal.verdicts),
                               ctx.workspace.root, True)
            return resume(ctx, console, request.command)
        raise WorkspaceLocked(
            f"another bisect is recorded in {journal_path(ctx.workspace.state)} ({journal.kind}, "
            f"{journal.good_ref}..{journal.bad_ref}, {len(journal.steps)} step(s) done)",
            fix="`tritondev bisect resume` goes on with it; `tritondev bisect reset` drops it")
    clone = adopted_clone(ctx)
    if clone is not None:  # your own clone: read, never moved (the steps work in a worktree of it)
        checkouts["triton"] = clone
    # A prebuilt LLVM (or --llvm PATH) has no checkout: only the checkouts there are recorded and put back.
    starts = {name: head_of(runner, path) for name, path in checkouts.items()
              if name == "triton" or (path / ".git").exists()}
    refuse_dirty(ctx, request.kind)
    links = urls(ctx)
    problems = inconsistencies(ctx, starts["triton"].commit, links)
    if problems:
        raise UsageError("these settings do not rebuild the current setup: " + "; ".join(problems),
                         fix="give the bisect the options `tritondev setup` had (or put them in tritondev.toml), "
                             "or run `tritondev setup` with these options first")
    moved = checkouts[NAMES[request.kind]]
    url = links.get(URL_SETTINGS[NAMES[request.kind]], "")
    in_clone = clone is not None and request.kind == "triton"
    with scratch_repository(moved, runner) as scratch:
        if in_clone:  # nothing is fetched into your clone: the range must be there
            good, bad = (local_commit(runner, moved, ref, what) for ref, what in ((request.good, "--good"),
                                                                               (request.bad, "--bad")))
        else:
            good = resolve(runner, moved, url, request.good, "--good")
            bad = resolve(runner, moved, url, request.bad, "--bad")
            fetch_range(scratch, url, good, bad)
        commits = list_range(scratch, good, bad, triton=request.kind == "triton")
        # Ignored files of the user's where any commit of the range has a file: refused before anything moves.
        refuse_ignored_in_range(NAMES[request.kind], moved, scratch.repo, [good, *(c.sha for c in commits.commits)],
                                runner, STEP)
        journal = Journal(request.kind, request.good, request.bad, commits, request.command, str(request.cwd),
                          request.build_failure, starts, started=time.time())
        if ctx.dry_run:
            return BisectOutcome(journal, search([c.sha for c in commits.commits], {}), ctx.workspace.root, True)
        # Recorded before anything reaches the checkout: a Ctrl-C from here on leaves a bisect to resume
        # (resume brings in the range again when the import did not finish).
        write_journal(ctx.workspace.state, journal)
        try:
            if not in_clone:
                import_range(ctx.runner, moved, scratch)
        except Exception:  # failed, not interrupted: nothing was tested; the same command starts afresh
            remove_journal(ctx.workspace.state)
            raise
    _clear_logs(ctx.workspace.logs / STEP)
    return _drive(ctx, journal, check, links, console)


def resume(ctx: AppContext, console: Console | None, command: tuple[str, ...] | None = None) -> BisectOutcome:
    """Go on with the recorded bisect (the caller holds the lock); `command`: the same command given again."""
    journal = read_journal(ctx.workspace.state) if ctx.workspace.state.is_dir() else None
    if journal is None:
        setup_state(ctx)  # no setup at all says so first
        raise UsageError("no bisect to resume in this workspace",
                         fix="start one: tritondev bisect triton --good REF --bad REF -- CMD ...")
    if command is None and journal.command_was_masked:
        raise UsageError("the bisect's command holds a credential, which tritondev keeps only masked",
                         fix=f"give the same command again: tritondev bisect {journal.kind} --good {journal.good_ref}"
                             f" --bad {journal.bad_ref} -- CMD (it goes on where it stopped)")
    check = Check.of(ctx, command or journal.command, Path(journal.cwd))
    refuse_dirty(ctx, journal.kind)
    links = urls(ctx)
    _bring_range(ctx, journal, links)
    return _drive(ctx, journal, check, links, console)


def _bring_range(ctx: AppContext, journal: Journal, links: Mapping[str, str]) -> None:
    """The range's commits into the checkout where some are missing (fetched again, as a start does); with
    your own clone, the range is looked up there (the bisect's worktree shares its commits)."""
    r = journal.range
    runner = ctx.runner.logging_to(None)
    shas = [r.good, *(c.sha for c in r.commits)]
    clone = adopted_clone(ctx)
    if journal.kind == "triton" and clone is not None:
        check_range_in_clone(runner, clone, shas)
        return
    moved = ctx.workspace.src / NAMES[journal.kind]
    if not missing(runner, moved, shas):
        return
    url = links.get(URL_SETTINGS[NAMES[journal.kind]], "")
    with scratch_repository(moved, runner) as scratch:
        fetch_range(scratch, url, r.good, r.bad)
        import_range(ctx.runner, moved, scratch)


def reset(ctx: AppContext, console: Console | None) -> ResetOutcome:
    """Put the checkouts and the starting build back (if a stopped bisect left them moved); forget it."""
    journal = read_journal(ctx.workspace.state) if ctx.workspace.state.is_dir() else None
    if journal is None:
        return ResetOutcome("no bisect in progress: nothing to reset")
    refuse_dirty(ctx, journal.kind)
    was_restored = journal.restored
    journal = _restore(ctx, journal, urls(ctx), console)
    _finish(ctx, journal)
    clone, worktree = adopted_clone(ctx), worktree_path(ctx)
    where = restored_of(journal, clone, worktree, clone is not None and os.path.lexists(worktree))
    return ResetOutcome(f"bisect forgotten; {where.text()}", len(journal.steps), not was_restored,
                        {name: s.commit for name, s in journal.start.items()}, where)


def _drive(ctx: AppContext, journal: Journal, check: Check, links: Mapping[str, str],
           console: Console | None) -> BisectOutcome:
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
            _say(console, "interrupted: " if isinstance(exc, KeyboardInterrupt) else "stopped: ",
                 "putting the checkouts and the starting build back (Ctrl-C again leaves that to "
                 "`tritondev bisect reset`)")
            _restore(ctx, journal, links, console, said)
        raise
    journal = _restore(ctx, journal, links, console, said)
    clone, worktree = adopted_clone(ctx), worktree_path(ctx)
    outcome = BisectOutcome(journal, state, ctx.workspace.root, clone=clone, worktree=worktree,
                      worktree_left=clone is not None and os.path.lexists(worktree))
    replace_json(ctx.workspace.logs / STEP / "result.json", outcome.to_json())
    _finish(ctx, journal)
    return outcome


def _stepper(ctx: AppContext, journal: Journal, links: Mapping[str, str], console: Console | None,
             said: set[str]) -> TritonStepper | LlvmStepper | WorktreeStepper:
    clone = adopted_clone(ctx)
    if journal.kind == "triton" and clone is not None:
        return WorktreeStepper(ctx, clone, links, console, said)
    if journal.kind == "triton":
        r = journal.range
        state = setup_state(ctx)
        stepper = TritonStepper(ctx, links, console, said, lambda sha: pin_at([c.sha for c in r.commits], r.good,
                                                                                r.pins, sha))
        stepper.folders.begin(state.llvm_pin, state.llvm_build)  # the starting build's LLVM, whatever step runs first
        return stepper
    return LlvmStepper(ctx, journal.start["triton"].commit, links, console)


def _one_step(ctx: AppContext, journal: Journal, stepper: TritonStepper | LlvmStepper | WorktreeStepper, check: Check,
              state: SearchState, console: Console | None) -> BisectStep:
    sha = state.next
    assert sha is not None
    number = len(journal.steps) + 1
    subject = journal.range.subject(sha)
    _say(console, f"[bold]step {number} of about {number - 1 + state.steps_left}[/bold] ",
         f"({len(state.candidates)} commits left): {sha[:12]} {subject}")
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
    llvm = sha if journal.kind == "llvm" else pin_at([c.sha for c in journal.range.commits], journal.range.good,
                                                       journal.range.pins, sha)
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
        raise ExternalError(f"the command exited {exit_code}, which aborts a bisect (as in `git bisect run`)",
                            fix=f"make it exit 0 (good), 1-127 (bad) or 125 (skip), then `tritondev bisect resume`; "
                                f"its output is in {log}")
    return verdict


def _restore(ctx: AppContext, journal: Journal, links: Mapping[str, str], console: Console | None,
             said: set[str] | None = None) -> Journal:
    if journal.restored:
        return journal
    runner = ctx.runner.logging_to(ctx.workspace.logs / STEP / "restore").recording().quiet(not ctx.verbose)
    clone = adopted_clone(ctx)
    moved = [f"src/{n} to {s.commit[:12]}" for n, s in journal.start.items() if n != "triton" or clone is None]
    _say(console, "restoring: ", ", ".join([*moved, f"your clone {clone} installed again" if clone else
                                            "the starting build"]))
    restore(ctx, runner, {n: (s.commit, s.branch) for n, s in journal.start.items()}, links, console, said)
    journal = dataclasses.replace(journal, restored=True)
    write_journal(ctx.workspace.state, journal)
    return journal


def _finish(ctx: AppContext, journal: Journal) -> None:
    BuildFolders(ctx.workspace.state).discard()  # build folders parked per LLVM: the bisect's own, gone
    clone = adopted_clone(ctx)
    for name, start in journal.start.items():
        if name != "triton" or clone is None:  # your clone got no ref of the bisect's
            drop_refs(ctx.runner, ctx.workspace.src / name, start.pin_refs)
    remove_journal(ctx.workspace.state)


def _clear_logs(folder: Path) -> None:
    """The logs of an earlier bisect go, and only they: result.json, and step folders (`NN-<commit>`,
    `restore`) that hold nothing but log files (core.writes refuses a `logs/bisect` that is a link)."""
    import re
    import shutil

    os.close(writes.open_folder(folder))
    for entry in folder.iterdir():
        if entry.name == "result.json" and writes.describe(entry) is None:
            entry.unlink()
        elif re.fullmatch(r"\d{2,}-[0-9a-f]{12}|restore", entry.name) and writes.describe(entry) == "a folder" \
                and all(writes.describe(f) is None and f.suffix == ".log" for f in entry.iterdir()):
            shutil.rmtree(entry)


def _say(console: Console | None, head: str, text: str) -> None:
    if console is None:
        return
    from rich.markup import escape

    console.print(head + escape(text))
