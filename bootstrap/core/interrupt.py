"""Ctrl-C, owned from the program's first instruction to its last.

A Ctrl-C raises KeyboardInterrupt only while a command runs. Before that (the imports) it is
remembered, and the command then does not start; after the outcome is decided it changes nothing.
Left to Python, a Ctrl-C during the imports would print a traceback, and one during the
interpreter's shutdown (which puts SIGINT back to its default) would end a command that had succeeded
by the signal itself, with no message.

`held_until_done` is for the few blocks that must not be cut halfway (a checkout writing files: cut,
it leaves a tree of two commits that no later move puts back): a Ctrl-C during one is raised as it
ends, and only a second Ctrl-C raises at once, for a user who insists.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class CtrlC:
    """The SIGINT handler. `seen` also tells an interruption from a command's own exit status 130
    (Typer's silent Ctrl-C, or `tritondev run` returning its child's), so an interruption is always said."""

    def __init__(self) -> None:
        self.seen = False
        self.raising = False
        self.count = 0
        # The count when a block held until done began; None outside one.
        self.held_from: int | None = None
        self.held_note = ""  # said on the first Ctrl-C a block holds: why nothing stops yet
        # How it is said: bootstrap.cli gives ui's line on stderr (this module is imported before anything else).
        self.say: Callable[[str], None] = lambda _line: None

    def __call__(self, signum: int, frame: object) -> None:
        self.seen = True
        self.count += 1
        if not self.raising:
            return
        if self.held_from is None or self.count - self.held_from >= 2:
            raise KeyboardInterrupt
        if self.held_note:
            # The block holding it only waits on a child (it writes nothing to stderr), and a write that
            # fails must not stop what is held.
            with contextlib.suppress(Exception):
                self.say(self.held_note)


@contextmanager
def held_until_done(doing: str = "") -> Iterator[None]:
    """The block runs whole: a Ctrl-C during it raises KeyboardInterrupt when it ends, a second one
    during it raises at once; the first says so, naming what is `doing`. Only where tritondev's handler
    raises now (a command runs, in the main thread, which is where Python runs signal handlers);
    elsewhere the block runs as usual."""
    handler = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if not isinstance(handler, CtrlC) or not handler.raising or handler.held_from is not None:
        yield
        return
    before = handler.held_from = handler.count
    handler.held_note = (
        f"Ctrl-C: letting {doing or 'this step'} finish, so that it does not stop halfway; Ctrl-C again stops it now"
    )
    try:
        yield
    finally:
        handler.held_from = None
        handler.held_note = ""
    if handler.count > before:
        raise KeyboardInterrupt
