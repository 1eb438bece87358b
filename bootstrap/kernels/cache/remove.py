"""Deleting planned kernel cache entries: the one step of the cache commands that changes the disk."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from bootstrap.kernels.cache.contents import KEY_NAME, TRASH_PREFIX, content_problem, is_trash_of_ours
from bootstrap.kernels.cache.plan import Removal


def remove_entries(root: Path, removals: Sequence[Removal]) -> list[Removal]:
    """Delete the planned entries; returns those removed.

    Each folder is first renamed out of Triton's sight (atomic), so a process reading the cache sees
    the entry whole or not at all, and an interrupted delete leaves only a trash folder that the
    next run finishes.
    """
    _empty_trash(root)
    done = []
    for removal in removals:
        folder = removal.entry.path
        if folder.parent != root or not KEY_NAME.match(folder.name) or folder.is_symlink():
            continue  # defence in depth: the planner never picks these
        if content_problem(folder) is not None:
            continue  # changed since the scan into something that is not Triton's: left as it is
        trash = root / f"{TRASH_PREFIX}{folder.name}-{os.getpid()}"
        try:
            folder.rename(trash)
        except FileNotFoundError:
            done.append(removal)  # someone else removed it meanwhile: gone all the same
            continue
        except OSError:
            continue  # no permission (a shared cache of another user): left whole, reported by the caller
        if content_problem(trash) is not None:
            # Written into between the check and the rename: put back, untouched (or, if the name
            # was taken meanwhile, left as a trash folder that no later run deletes).
            try:
                os.rename(trash, folder)
            except OSError:
                pass
            continue
        shutil.rmtree(trash, ignore_errors=True)
        done.append(removal)
    return done


def _empty_trash(root: Path) -> None:
    """Finish deletions an interrupted run left: only trash folders of ours that hold Triton files only."""
    try:
        leftovers = [p for p in root.iterdir() if is_trash_of_ours(p)]
    except OSError:
        return
    for path in leftovers:
        shutil.rmtree(path, ignore_errors=True)
