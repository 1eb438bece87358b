"""`tritondev cache ls` and `cache show`: what the kernel cache holds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

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
def ls(ctx: AppContext, dir: Dir = None) -> None:
    """List cache entries: kernel, target, Triton version, size, age, registers, spills; stale ones flagged.

    Stale: built by another Triton than the target environment's (--python).

    Or built for a target that is not a GPU of this machine (checked only where a GPU is present).
    """
    from bootstrap.commands.cache.render import print_listing
    from bootstrap.core import ui
    from bootstrap.kernels.cache import inspect_cache, now

    report = inspect_cache(ctx, dir)
    if ctx.json:
        ui.emit_json({**report.to_json(now()), "target_python": ctx.target_json()})
        return
    print_listing(report)


@options.command("workspace", "python", "json", reads_target=True)
def show(ctx: AppContext, entry: EntryRef, artifact: Artifact = None, dir: Dir = None) -> None:
    """Show one entry: its metadata and artifacts, or print one artifact."""
    import sys

    from bootstrap.commands.cache.render import binary_hint, print_entry
    from bootstrap.core import ui
    from bootstrap.core.errors import UsageError
    from bootstrap.kernels.cache import find_artifact, find_entry, inspect_cache, now

    report = inspect_cache(ctx, dir)
    found = find_entry(report.entries, entry)
    if artifact is None:
        if ctx.json:
            data = found.to_json(now())
            data["metadata"] = found.metadata
            ui.emit_json(data)
        else:
            print_entry(found)
        return
    chosen = find_artifact(found, artifact)
    path = found.path / chosen.name
    from bootstrap.core.fsutil import read_regular

    try:
        content = read_regular(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}", fix="list the entry again: it may be gone") from None
    if ctx.json:
        ui.emit_json(
            {
                "key": found.key,
                "artifact": chosen.name,
                "path": str(path),
                "binary": chosen.binary,
                "content": None if chosen.binary else content.decode("utf-8", "replace"),
            }
        )
        return
    if chosen.binary and sys.stdout.isatty():
        nvdisasm = _nvdisasm(ctx) if chosen.name.endswith(".cubin") else None
        raise UsageError(
            f"{chosen.name} is binary ({len(content)} bytes): {path}",
            fix=f"redirect it to a file (> {chosen.name}) or {binary_hint(chosen.name, path, nvdisasm)}",
        )
    ui.emit_bytes(content)


def _nvdisasm(ctx: AppContext) -> str | None:
    """An nvdisasm that exists: the target environment's Triton's, else the CUDA toolkit's."""
    import shutil

    from bootstrap.core.errors import TritondevError
    from bootstrap.kernels.nvidia_tools import nvidia_tool

    try:
        target = ctx.target_python_if_present()
    except TritondevError:
        target = None
    bundled = next((str(site / "triton" / "backends" / "nvidia" / "bin") for site in target.site_packages
                    if (site / "triton").is_dir()), None) if target else None
    return nvidia_tool("nvdisasm", bundled, which=shutil.which)
