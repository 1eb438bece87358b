"""What `tritondev cache show|clear|prune` do, one call each: an entry or one of its artifacts read, the
planned entries removed (only under the rules of plan.py and remove.py; --dry-run removes nothing)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import TritondevError, UsageError
from bootstrap.core.fsutil import read_regular
from bootstrap.kernels.cache.plan import Removal, now, plan_clear, plan_prune
from bootstrap.kernels.cache.remove import remove_entries
from bootstrap.kernels.cache.report import CacheReport, inspect_cache
from bootstrap.kernels.cache.scan import Artifact, Entry, find_artifact, find_entry
from bootstrap.kernels.cache.units import parse_duration, parse_size
from bootstrap.kernels.nvidia_tools import nvidia_tool

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


@dataclass(frozen=True)
class ArtifactRead:
    """One artifact of an entry, read whole."""

    entry: Entry
    artifact: Artifact
    path: Path
    content: bytes

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.entry.key,
            "artifact": self.artifact.name,
            "path": str(self.path),
            "binary": self.artifact.binary,
            "content": None if self.artifact.binary else self.content.decode("utf-8", "replace"),
        }


def show_entry(ctx: AppContext, dir_option: Path | None, wanted: str) -> Entry:
    """The entry named by its key, a unique key prefix or a unique kernel name (UsageError otherwise)."""
    return find_entry(inspect_cache(ctx, dir_option).entries, wanted)


def read_artifact(
    ctx: AppContext, dir_option: Path | None, wanted: str, artifact: str, *, to_terminal: bool
) -> ArtifactRead:
    """One artifact of an entry. A binary one is refused where it would go to a terminal as text
    (to_terminal, not under --json): the error says how to look inside it."""
    found = show_entry(ctx, dir_option, wanted)
    chosen = find_artifact(found, artifact)
    path = found.path / chosen.name
    try:
        content = read_regular(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}", fix="list the entry again: it may be gone") from None
    if chosen.binary and to_terminal and not ctx.json:
        nvdisasm = _nvdisasm(ctx) if chosen.name.endswith(".cubin") else None
        raise UsageError(
            f"{chosen.name} is binary ({len(content)} bytes): {path}",
            fix=f"redirect it to a file (> {chosen.name}) or {binary_hint(chosen.name, path, nvdisasm)}",
        )
    return ArtifactRead(found, chosen, path, content)


def binary_hint(name: str, path: Path, nvdisasm: str | None = None) -> str:
    """How to look inside a binary artifact; for a cubin, with an nvdisasm that exists here."""
    if name.endswith(".cubin"):
        if nvdisasm is None:
            return (
                "disassemble it with nvdisasm (in Triton's wheel and the CUDA toolkit; none found here: "
                "pass --python with the environment Triton is installed in)"
            )
        return f"disassemble it: {nvdisasm} -c {path}"
    if name.endswith(".hsaco"):
        return f"disassemble it: llvm-objdump -d {path}"
    return f"inspect it: nm -D {path}"


def _nvdisasm(ctx: AppContext) -> str | None:
    """An nvdisasm that exists: the target environment's Triton's, else the CUDA toolkit's."""
    try:
        target = ctx.target_python_if_present()
    except TritondevError:
        target = None
    bundled = (
        next(
            (
                str(site / "triton" / "backends" / "nvidia" / "bin")
                for site in target.site_packages
                if (site / "triton").is_dir()
            ),
            None,
        )
        if target
        else None
    )
    return nvidia_tool("nvdisasm", bundled, which=shutil.which)


@dataclass(frozen=True)
class CacheRemoval:
    """What clear or prune removed (or would remove, under --dry-run), and what could not be removed."""

    root: Path
    dry_run: bool
    done: tuple[Removal, ...]
    failed: tuple[Removal, ...]  # planned, but left as they were (permissions, or in use)
    kept: int  # entries left in the cache

    @property
    def freed(self) -> int:
        return sum(r.entry.size for r in self.done)

    def to_json(self) -> dict[str, object]:
        return {
            "dir": str(self.root),
            "dry_run": self.dry_run,
            "removed": [
                {
                    "key": r.entry.key,
                    "name": r.entry.name,
                    "kind": r.entry.kind,
                    "size": r.entry.size,
                    "reason": r.reason,
                }
                for r in self.done
            ],
            "failed": [{"key": r.entry.key, "name": r.entry.name, "reason": r.reason} for r in self.failed],
            "freed_bytes": self.freed,
            "kept": self.kept,
        }


def clear_cache(ctx: AppContext, dir_option: Path | None, kernel: str | None) -> CacheRemoval:
    """Every removable entry, or those of one kernel (shell wildcards), removed."""
    report = inspect_cache(ctx, dir_option, check_stale=False)
    return _apply(report, plan_clear(report.entries, kernel), ctx.dry_run)


def prune_cache(
    ctx: AppContext, dir_option: Path | None, *, older_than: str | None, max_size: str | None, stale: bool
) -> CacheRemoval:
    """Old entries, stale ones, then the oldest beyond a size, removed; UsageError without a rule."""
    if older_than is None and max_size is None and not stale:
        raise UsageError(
            "prune needs a rule: --older-than, --max-size or --stale",
            fix="e.g. tritondev cache prune --older-than 7d --max-size 5G",
        )
    age = parse_duration(older_than) if older_than is not None else None
    size = parse_size(max_size) if max_size is not None else None
    report = inspect_cache(ctx, dir_option, check_stale=stale)
    plan = plan_prune(report.entries, now(), older_than=age, max_size=size, stale=stale)
    return _apply(report, plan, ctx.dry_run)


def _apply(report: CacheReport, plan: list[Removal], dry_run: bool) -> CacheRemoval:
    done = plan if dry_run else remove_entries(report.root, plan)
    removed_keys = {r.entry.key for r in done}
    failed = tuple(r for r in plan if r.entry.key not in removed_keys)
    return CacheRemoval(report.root, dry_run, tuple(done), failed, len(report.entries) - len(done))
