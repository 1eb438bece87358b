"""Crash reproducers: where `tritondev run --reproducer DIR` has Triton write them.

Triton reads TRITON_REPRODUCER_PATH=<prefix> in its pass manager's run (python/src/ir.cc). From 3.6 on
it writes `<prefix>.<stage>.repro.mlir` before each MLIR stage (make_ttir, make_ttgir, make_llir,
...) and, when a pass fails or crashes, overwrites that stage's file with a one-pass reproducer of
the IR right before the failing pass; before 3.6 it writes one file, `<prefix>` itself. The
variable does not change Triton's cache key, so a cached kernel would compile nothing and write
nothing: TRITON_ALWAYS_COMPILE=1 goes with it, as Triton's own test_reproducer.py sets it.
"""

from __future__ import annotations

from pathlib import Path

from bootstrap.core.errors import UsageError

PREFIX = "triton"


def reproducer_variables(folder: Path, *, dry_run: bool) -> dict[str, str]:
    """The variables that make Triton write its reproducers into `folder` (created unless dry_run)."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(
            f"--reproducer {folder} is a file, not a folder",
            fix="give a folder for the reproducers, e.g. --reproducer repro/",
        )
    if not dry_run:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(
                f"cannot create {folder}: {exc.strerror}", fix="give a folder you can write, e.g. --reproducer repro/"
            ) from None
    return {"TRITON_REPRODUCER_PATH": str(folder.absolute() / PREFIX), "TRITON_ALWAYS_COMPILE": "1"}


def describe(folder: Path) -> str:
    base = folder / PREFIX
    return (
        f"reproducers go to {base}.<stage>.repro.mlir (Triton before 3.6: {base}, the last stage's); "
        f"replay one with `tritondev opt --reproducer {base}.make_ttgir.repro.mlir`"
    )
