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

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import UsageError, WorkspaceLocked
from bootstrap.core.io import writes
from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import URL_SETTINGS
from bootstrap.git.commit_range import fetch_range, import_range, list_range, missing, resolve, scratch_repository
from bootstrap.git.moves import refuse_ignored_in_range
from bootstrap.pipeline.bisect.checks import STEP, Check, head_of, inconsistencies, refuse_dirty, setup_state, urls
from bootstrap.pipeline.bisect.journal import (
    BisectKind,
    BuildFailureMode,
    Journal,
    journal_path,
    read_journal,
    remove_journal,
    write_journal,
)
from bootstrap.pipeline.bisect.loop import drive, forget, put_back
from bootstrap.pipeline.bisect.outcome import BisectOutcome
from bootstrap.pipeline.bisect.restore import ResetOutcome, restored_of
from bootstrap.pipeline.bisect.search import search
from bootstrap.pipeline.bisect.worktree import adopted_clone, check_range_in_clone, local_commit, worktree_path

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


# -- the bisect --------------------------------------------------------------------------------------


def start(ctx: AppContext, request: BisectRequest, console: Console | None) -> BisectOutcome:
    """Check everything, then bisect (the caller holds the workspace lock unless --dry-run)."""
    check = Check.of(ctx, request.command, request.cwd)
    journal = read_journal(ctx.workspace.state)
    runner = ctx.runner.logging_to(None)
    checkouts = {name: ctx.workspace.src / name for name in NAMES.values()}
    if journal is not None:
        return _recorded(ctx, journal, request, console)
    clone = adopted_clone(ctx)
    if clone is not None:  # your own clone: read, never moved (the steps work in a worktree of it)
        checkouts["triton"] = clone
    # A prebuilt LLVM (or --llvm PATH) has no checkout: only the checkouts there are recorded and put back.
    starts = {
        name: head_of(runner, path) for name, path in checkouts.items() if name == "triton" or (path / ".git").exists()
    }
    links = _checked_urls(ctx, request.kind, starts["triton"].commit)
    moved = checkouts[NAMES[request.kind]]
    url = links.get(URL_SETTINGS[NAMES[request.kind]], "")
    in_clone = clone is not None and request.kind == "triton"
    with scratch_repository(moved, runner) as scratch:
        good, bad = _ends(runner, request, moved, url, in_clone)
        if not in_clone:  # nothing is fetched into your clone: the range must be there
            fetch_range(scratch, url, good, bad)
        commits = list_range(scratch, good, bad, triton=request.kind == "triton")
        # Ignored files of the user's where any commit of the range has a file: refused before anything moves.
        refuse_ignored_in_range(
            NAMES[request.kind], moved, scratch.repo, [good, *(c.sha for c in commits.commits)], runner, STEP
        )
        journal = Journal(
            request.kind,
            request.good,
            request.bad,
            commits,
            request.command,
            str(request.cwd),
            request.build_failure,
            starts,
            started=time.time(),
        )
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
    return drive(ctx, journal, check, links, console)


def _recorded(ctx: AppContext, journal: Journal, request: BisectRequest, console: Console | None) -> BisectOutcome:
    """A bisect is recorded already: the same request goes on with it (under --dry-run, says where it
    stands); any other is refused."""
    if journal.same_request(request.kind, request.good, request.bad, request.command, request.build_failure):
        if ctx.dry_run:
            return BisectOutcome(
                journal, search([c.sha for c in journal.range.commits], journal.verdicts), ctx.workspace.root, True
            )
        return resume(ctx, console, request.command)
    raise WorkspaceLocked(
        f"another bisect is recorded in {journal_path(ctx.workspace.state)} ({journal.kind}, "
        f"{journal.good_ref}..{journal.bad_ref}, {len(journal.steps)} step(s) done)",
        fix="`tritondev bisect resume` goes on with it; `tritondev bisect reset` drops it",
    )


def _ends(runner: Runner, request: BisectRequest, moved: Path, url: str, in_clone: bool) -> tuple[str, str]:
    """--good and --bad as commits: in your clone, nothing is fetched (the range must be there); in a
    checkout of the workspace, a ref it lacks is looked up at its remote."""
    if in_clone:
        return local_commit(runner, moved, request.good, "--good"), local_commit(runner, moved, request.bad, "--bad")
    return resolve(runner, moved, url, request.good, "--good"), resolve(runner, moved, url, request.bad, "--bad")


def _checked_urls(ctx: AppContext, kind: BisectKind, triton_commit: str) -> dict[str, str]:
    """Where missing commits come from, once the checkouts are found without local changes and the
    settings found to rebuild the current setup (each step builds with them, the end reinstalls with them)."""
    refuse_dirty(ctx, kind)
    links = urls(ctx)
    problems = inconsistencies(ctx, triton_commit, links)
    if problems:
        raise UsageError(
            "these settings do not rebuild the current setup: " + "; ".join(problems),
            fix="give the bisect the options `tritondev setup` had (or put them in tritondev.toml), "
            "or run `tritondev setup` with these options first",
        )
    return links


def resume(ctx: AppContext, console: Console | None, command: tuple[str, ...] | None = None) -> BisectOutcome:
    """Go on with the recorded bisect (the caller holds the lock); `command`: the same command given again."""
    journal = read_journal(ctx.workspace.state) if ctx.workspace.state.is_dir() else None
    if journal is None:
        setup_state(ctx)  # no setup at all says so first
        raise UsageError(
            "no bisect to resume in this workspace",
            fix="start one: tritondev bisect triton --good REF --bad REF -- CMD ...",
        )
    if command is None and journal.command_was_masked:
        raise UsageError(
            "the bisect's command holds a credential, which tritondev keeps only masked",
            fix=f"give the same command again: tritondev bisect {journal.kind} --good {journal.good_ref}"
            f" --bad {journal.bad_ref} -- CMD (it goes on where it stopped)",
        )
    check = Check.of(ctx, command or journal.command, Path(journal.cwd))
    refuse_dirty(ctx, journal.kind)
    links = urls(ctx)
    _bring_range(ctx, journal, links)
    return drive(ctx, journal, check, links, console)


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
    journal = put_back(ctx, journal, urls(ctx), console)
    forget(ctx, journal)
    clone, worktree = adopted_clone(ctx), worktree_path(ctx)
    where = restored_of(journal, clone, worktree, clone is not None and os.path.lexists(worktree))
    return ResetOutcome(
        f"bisect forgotten; {where.text()}",
        len(journal.steps),
        not was_restored,
        {name: s.commit for name, s in journal.start.items()},
        where,
    )


def _clear_logs(folder: Path) -> None:
    """The logs of an earlier bisect go, and only they: result.json, and step folders (`NN-<commit>`,
    `restore`) that hold nothing but log files (core.writes refuses a `logs/bisect` that is a link)."""
    import re
    import shutil

    os.close(writes.open_folder(folder))
    for entry in folder.iterdir():
        if entry.name == "result.json" and writes.describe(entry) is None:
            entry.unlink()
        elif (
            re.fullmatch(r"\d{2,}-[0-9a-f]{12}|restore", entry.name)
            and writes.describe(entry) == "a folder"
            and all(writes.describe(f) is None and f.suffix == ".log" for f in entry.iterdir())
        ):
            shutil.rmtree(entry)
