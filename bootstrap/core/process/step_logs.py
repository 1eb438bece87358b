"""The log file of each step, `<workspace>/logs/<step>.log`: what the runner writes there.

Each log starts with the command (secrets masked) and the folder it ran in, then its output, masked
too, then its exit status. A log that cannot be written (a read-only workspace) is skipped: the
command still runs, and its failure still names the command and its last lines. A log path that is
a link, a folder or a FIFO is never opened through: the command stops with exit 2 naming it
(core.writes).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TextIO, cast

from bootstrap.core.io import writes
from bootstrap.core.redact import redact


def log_path(log_dir: Path | None, step: str) -> Path | None:
    """Where `step` logs: its name with anything but letters, digits and `-_.` made `_`."""
    if log_dir is None:
        return None
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in step)
    return log_dir / f"{safe}.log"


def open_log(path: Path | None, args: tuple[str, ...], cwd: object, *, fresh: bool) -> TextIO | None:
    """The log opened for one command, its header written; `fresh`: start the file anew, else append."""
    if path is None:
        return None
    try:
        fh = cast(TextIO, writes.open_text(path, writes.Mode.TRUNCATE if fresh else writes.Mode.APPEND))
    except OSError:
        return None
    fh.write(f"$ {redact(shlex.join(args))}\n# cwd: {cwd or os.getcwd()}\n")
    fh.flush()
    return fh


def write_log(log: TextIO | None, text: str) -> None:
    if log is None:
        return
    log.write(redact(text))
    log.flush()


def note_exit_status(path: Path | None, returncode: int) -> None:
    """Append the exit status to a log already closed (a streamed step closes it as its output ends)."""
    if path is None:
        return
    try:
        with writes.open_text(path, writes.Mode.APPEND) as fh:
            fh.write(f"# exit status {returncode}\n")
    except OSError:
        pass  # a log that could not be opened (read-only workspace) is skipped, its status too
