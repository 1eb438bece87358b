"""Progress of long build steps: ninja's `[N/M]` lines drive a progress bar with an ETA.

The runner streams every line of the step's output to its log file and hands it to `on_line`;
this module only watches for ninja's status lines. Nothing is drawn when stderr is not a terminal
or under --json (the log still has everything); then a short line is printed every 10%.
"""

from __future__ import annotations

import re
import time
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

# ninja's default status format "[%f/%t] ", possibly indented (pip -v indents build output).
NINJA_STATUS = re.compile(r"^\s*\[(\d+)/(\d+)\]\s")


def parse_ninja_status(line: str) -> tuple[int, int] | None:
    match = NINJA_STATUS.match(line)
    if not match:
        return None
    done, total = int(match.group(1)), int(match.group(2))
    return (done, total) if total > 0 else None


class NinjaProgress:
    """Context manager: `with NinjaProgress("LLVM build", console) as p: runner.run(..., on_line=p.on_line)`."""

    def __init__(self, label: str, console: Console | None, *, enabled: bool = True) -> None:
        self.label = label
        self.console = console
        self.enabled = enabled and console is not None
        self.live = bool(self.enabled and console is not None and console.is_terminal)
        self.done = 0
        self.total = 0
        self.lines = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._last_decile = -1
        self._started = time.monotonic()

    def __enter__(self) -> NinjaProgress:
        if self.live:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("elapsed"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=None)
        return self

    def on_line(self, line: str) -> None:
        self.lines += 1
        status = parse_ninja_status(line)
        if status is None:
            return
        done, total = status
        if total != self.total:
            # A new ninja run (cmake's configure-time builds, or setup.py's second build): restart.
            self.total = total
            if self._progress is not None and self._task is not None:
                self._progress.reset(self._task, total=total)
        self.done = done
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done, total=total)
        elif self.enabled and self.console is not None:
            decile = done * 10 // total
            if decile != self._last_decile and decile % 2 == 0:
                self._last_decile = decile
                self.console.print(f"{self.label}: {done}/{total} ({done * 100 // total}%)")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()
