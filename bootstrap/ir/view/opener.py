"""`ir view --open`: the page opened with the desktop's browser, where this machine has one.

The opener is `$BROWSER` (its first entry that is a program here: the variable Python's webbrowser and
xdg-utils read, `:`-separated), else `open` on macOS, else `xdg-open` where a display is set
(`DISPLAY` or `WAYLAND_DISPLAY`). A cluster node or a container has none: the page is still written and
the caller says where it is. The opener runs through the runner, like every process tritondev starts.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core import ui
from bootstrap.core.process.runner import Runner


@dataclass(frozen=True)
class Opener:
    argv: list[str]  # the program and its arguments, the page's path appended
    why: str  # where it came from


def find_opener(
    environ: Mapping[str, str], which: Callable[[str], str | None], platform: str = sys.platform
) -> Opener | str:
    """The command that opens a page in this desktop's browser, or (a str) why there is none."""
    for entry in environ.get("BROWSER", "").split(":"):
        words = shlex.split(entry) if entry.strip() else []
        if words and which(words[0]):
            return Opener(words, "$BROWSER")
    if platform == "darwin" and which("open"):
        return Opener(["open"], "macOS open")
    if not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return "no desktop here (neither DISPLAY nor WAYLAND_DISPLAY is set, and no $BROWSER)"
    if which("xdg-open"):
        return Opener(["xdg-open"], "xdg-open")
    return "no browser opener here (no $BROWSER program and no xdg-open on PATH)"


def open_page(runner: Runner, opener: Opener, page: Path) -> int:
    """Start the opener on the page's file; its exit status (xdg-open returns once the browser has it)."""
    words = [w.replace("%s", str(page)) for w in opener.argv]
    argv = words if any("%s" in w for w in opener.argv) else [*words, str(page)]
    # Its stdout goes to stderr: stdout holds tritondev's own output (with --json, one document).
    return runner.run_attached(argv, step="ir-view-open", on_stdout=ui.ChildOutput("stderr").text).returncode
