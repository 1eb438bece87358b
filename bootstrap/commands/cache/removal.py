"""`tritondev cache clear` and `cache prune`: remove entries; --dry-run lists what would go."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.cache.listing import Dir

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.kernels.cache import CacheReport, Removal

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
def clear(ctx: AppContext, kernel: Kernel = None, dir: Dir = None) -> None:
    """Remove every cache entry, or those of one kernel. Asks nothing; --dry-run lists what would go."""
    from bootstrap.kernels.cache import inspect_cache, plan_clear

    report = inspect_cache(ctx, dir, check_stale=False)
    _apply(report, plan_clear(report.entries, kernel), dry_run=ctx.dry_run, json=ctx.json)


@options.command("workspace", "python", "json", "dry_run", reads_target=True)
def prune(
    ctx: AppContext, older_than: OlderThan = None, max_size: MaxSize = None, stale: Stale = False, dir: Dir = None
) -> None:
    """Remove old entries, stale ones, or the oldest beyond a size. Asks nothing; --dry-run lists what would go."""
    from bootstrap.core.errors import UsageError
    from bootstrap.kernels.cache import inspect_cache, now, parse_duration, parse_size, plan_prune

    if older_than is None and max_size is None and not stale:
        raise UsageError(
            "prune needs a rule: --older-than, --max-size or --stale",
            fix="e.g. tritondev cache prune --older-than 7d --max-size 5G",
        )
    age = parse_duration(older_than) if older_than is not None else None
    size = parse_size(max_size) if max_size is not None else None
    report = inspect_cache(ctx, dir, check_stale=stale)
    plan = plan_prune(report.entries, now(), older_than=age, max_size=size, stale=stale)
    _apply(report, plan, dry_run=ctx.dry_run, json=ctx.json)


def _apply(report: CacheReport, plan: list[Removal], *, dry_run: bool, json: bool) -> None:
    from bootstrap.core import ui
    from bootstrap.kernels.cache import human_size, remove_entries

    done = plan if dry_run else remove_entries(report.root, plan)
    removed_keys = {r.entry.key for r in done}
    failed = [r for r in plan if r.entry.key not in removed_keys]
    freed = sum(r.entry.size for r in done)
    if json:
        ui.emit_json(
            {
                "dir": str(report.root),
                "dry_run": dry_run,
                "removed": [
                    {
                        "key": r.entry.key,
                        "name": r.entry.name,
                        "kind": r.entry.kind,
                        "size": r.entry.size,
                        "reason": r.reason,
                    }
                    for r in done
                ],
                "failed": [{"key": r.entry.key, "name": r.entry.name, "reason": r.reason} for r in failed],
                "freed_bytes": freed,
                "kept": len(report.entries) - len(done),
            }
        )
        return
    verb = "would remove" if dry_run else "removed"
    for r in done:
        name = r.entry.name or "-"
        ui.info(f"{verb} {r.entry.key[:12]}  {name}  {human_size(r.entry.size)}  ({r.reason})")
    for r in failed:
        ui.warn(f"could not remove {r.entry.path} (permissions, or in use); it was left as it was")
    left = len(report.entries) - len(done)
    ui.info(
        f"{'Would remove' if dry_run else 'Removed'} {len(done)} entries ({human_size(freed)}) from "
        f"{report.root}; {left} kept"
    )
