"""Options shared by the commands (names and env vars fixed by the CLI design)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Workspace = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--workspace",
        help="Where checkouts, builds, logs and state live (env: TRITONDEV_WORKSPACE; "
        "default: nearest folder with a tritondev.toml, else ~/tritondev).",
        show_default=False,
    ),
]
Python = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--python",
        help="Target Python environment (interpreter or env folder) (env: TRITONDEV_PYTHON; "
        "default: active venv/conda env, else <workspace>/venv).",
        show_default=False,
    ),
]
Json = Annotated[bool, typer.Option("--json", help="One JSON document on stdout, nothing else there.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would run; change nothing.")]
Verbose = Annotated[bool, typer.Option("-v", "--verbose", help="More detail.")]


def given(**options: object) -> dict[str, object]:
    """Only the options the user actually gave (None means 'not given'), for settings precedence."""
    return {k: v for k, v in options.items() if v is not None}
