"""Terminal output. rich is imported lazily so that `--help` stays fast.

stdout carries results (and with --json nothing but one JSON document); stderr carries progress,
echoed commands, warnings and errors.
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


@lru_cache(maxsize=1)
def out() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@lru_cache(maxsize=1)
def err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def echo_command(text: str) -> None:
    from rich.markup import escape

    err().print(f"[dim]{escape(text)}[/dim]")


def info(text: str) -> None:
    err().print(text)


def warn(text: str) -> None:
    from rich.markup import escape

    err().print(f"[yellow]warning:[/yellow] {escape(text)}")


def emit_json(data: Any) -> None:
    """The one JSON document of a --json run, on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    sys.stdout.flush()
