"""`tritondev cache ls` and `cache show`: what the kernel cache holds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.outcome import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Dir = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--dir",
        help="The cache folder (default: $TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~/.triton/cache).",
    ),
]
EntryRef = Annotated[str, typer.Argument(help="Entry key (or a unique prefix of 4+ characters) or kernel name.")]
Artifact = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(help="Print this artifact: a file name or a stage (ttir, ttgir, llir, ptx, amdgcn, ...)."),
]


@options.command("workspace", "python", "json", "verbose", reads_target=True)
def ls(ctx: AppContext, dir: Dir = None) -> Outcome:
    """List cache entries: kernel, target, Triton version, size, age, registers, spills; stale ones flagged.

    Stale: built by another Triton than the target environment's (--python).

    Or built for a target that is not a GPU of this machine (checked only where a GPU is present).
    """
    from bootstrap.commands.cache.render import Listing
    from bootstrap.kernels.cache import inspect_cache

    return Listing(inspect_cache(ctx, dir), ctx.chosen_target())


@options.command("workspace", "python", "json", reads_target=True)
def show(ctx: AppContext, entry: EntryRef, artifact: Artifact = None, dir: Dir = None) -> Outcome:
    """Show one entry: its metadata and artifacts, or print one artifact."""
    import sys

    from bootstrap.commands.cache.render import ArtifactShown, EntryShown
    from bootstrap.kernels.cache.actions import read_artifact, show_entry

    if artifact is None:
        return EntryShown(show_entry(ctx, dir, entry))
    return ArtifactShown(read_artifact(ctx, dir, entry, artifact, to_terminal=sys.stdout.isatty()))
