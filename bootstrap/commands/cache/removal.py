"""`tritondev cache clear` and `cache prune`: remove entries; --dry-run lists what would go."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.cache.listing import Dir

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.outcome import Outcome

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Kernel = Annotated[
    Optional[str],  # noqa: UP045
    typer.Argument(help="Only entries of this kernel (shell wildcards allowed, e.g. 'matmul_*')."),
]
OlderThan = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--older-than", help="Remove entries written longer ago than this: 30m, 12h, 7d, 2w."),
]
MaxSize = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--max-size", help="Then remove the oldest entries until the cache fits: 500M, 5G, bytes."),
]
Stale = Annotated[
    bool, options.flag("--stale", help="Remove stale entries (other Triton version, or target not here).")
]


@options.command("workspace", "python", "json", "dry_run", reads_target=True)
def clear(ctx: AppContext, kernel: Kernel = None, dir: Dir = None) -> Outcome:
    """Remove every cache entry, or those of one kernel. Asks nothing; --dry-run lists what would go."""
    from bootstrap.commands.cache.render import Removed
    from bootstrap.kernels.cache.actions import clear_cache

    return Removed(clear_cache(ctx, dir, kernel))


@options.command("workspace", "python", "json", "dry_run", reads_target=True)
def prune(
    ctx: AppContext, older_than: OlderThan = None, max_size: MaxSize = None, stale: Stale = False, dir: Dir = None
) -> Outcome:
    """Remove old entries, stale ones, or the oldest beyond a size. Asks nothing; --dry-run lists what would go."""
    from bootstrap.commands.cache.render import Removed
    from bootstrap.kernels.cache.actions import prune_cache

    return Removed(prune_cache(ctx, dir, older_than=older_than, max_size=max_size, stale=stale))
