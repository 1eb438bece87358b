"""After a bisect: both checkouts back at their starting commits and the starting build installed again,
and what `bisect reset` says it put back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.process.runner import Runner
from bootstrap.pipeline.bisect.builds import BuildFolders
from bootstrap.pipeline.bisect.journal import Journal
from bootstrap.pipeline.bisect.steps import checkout, prepare_build_folder
from bootstrap.pipeline.bisect.worktree import adopted_clone, restore_clone
from bootstrap.pipeline.setup import api as setup

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext


def restore(
    ctx: AppContext,
    runner: Runner,
    starts: Mapping[str, tuple[str, str | None]],
    urls: Mapping[str, str],
    console: Console | None,
    said: set[str] | None = None,
) -> None:
    """Both checkouts back at their starting commits (and branches), the starting build installed again;
    with your own clone (--triton-src) the clone, never moved, is installed again and the bisect's
    worktree removed."""
    clone = adopted_clone(ctx)
    for name, (commit, branch) in starts.items():
        if name != "triton" or clone is None:
            checkout(runner, ctx.workspace.src / name, commit, branch)
    if clone is not None:
        restore_clone(ctx, runner, clone, urls, console, said)
        return
    triton_commit = starts["triton"][0]
    folders = BuildFolders(ctx.workspace.state)
    prepare_build_folder(ctx, folders, folders.start)  # the starting build's folder, when it was parked
    setup.rebuild(ctx, runner, console, said, triton_commit=triton_commit, allow_dirty=True, **urls)


@dataclass(frozen=True)
class Restored:
    """What the end of a bisect put back, as it is on disk now. Pure to render."""

    moved: Mapping[str, str]  # checkout under src/ -> the commit it is back at
    clone: Path | None = None  # your clone (--triton-src): never moved, installed again as it stands
    clone_head: str = ""  # its HEAD, as the bisect found it and left it
    worktree: Path | None = None  # the bisect's worktree of your clone
    worktree_left: bool = False  # still on disk (a removal that failed): `bisect reset` tries again

    def text(self) -> str:
        parts = [f"src/{name} at {commit[:12]}" for name, commit in self.moved.items()]
        if self.clone is None:
            return ", ".join(parts) + ", and the starting build installed again"
        untouched = f"your clone {self.clone} untouched (never moved: HEAD {self.clone_head[:12]} as it stands)"
        worktree = (
            f"the worktree {self.worktree} still there (`tritondev bisect reset` removes it)"
            if self.worktree_left
            else f"the worktree {self.worktree} removed"
        )
        return ", ".join([untouched, worktree, *parts]) + ", and your clone installed again"

    def to_json(self) -> dict[str, object]:
        return {
            **self.moved,
            **(
                {
                    "clone": {
                        "path": str(self.clone),
                        "head": self.clone_head,
                        "moved": False,
                        "worktree": str(self.worktree),
                        "worktree_removed": not self.worktree_left,
                        "installed": True,
                    }
                }
                if self.clone is not None
                else {}
            ),
        }


def restored_of(journal: Journal, clone: Path | None, worktree: Path | None, worktree_left: bool) -> Restored:
    """What the bisect's end restored: with your clone, the clone untouched and its worktree gone."""
    moved = {name: s.commit for name, s in journal.start.items() if name != "triton" or clone is None}
    if clone is None:
        return Restored(moved)
    return Restored(moved, clone, journal.start["triton"].commit, worktree, worktree_left)


@dataclass(frozen=True)
class ResetOutcome:
    """What `bisect reset` did: nothing (no bisect recorded), or the checkouts put back and the bisect
    forgotten."""

    message: str
    steps: int = 0  # the steps the forgotten bisect had made
    restored_now: bool = False  # this reset put things back (not an earlier end of the bisect)
    start: dict[str, str] | None = None  # checkout -> the commit it is back at; None: nothing to reset
    restored: Restored | None = None  # where each checkout is now

    def to_json(self) -> dict[str, object]:
        if self.start is None:
            return {"reset": False, "message": self.message}
        return {
            "reset": True,
            "restored_now": self.restored_now,
            "steps": self.steps,
            "start": self.start,
            "restored": self.restored.to_json() if self.restored else None,
            "message": self.message,
        }
