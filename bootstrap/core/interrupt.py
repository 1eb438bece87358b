"""Ctrl-C, owned from the program's first instruction to its last.

A Ctrl-C raises KeyboardInterrupt only while a command runs. Before that (the imports) it is
remembered, and the command then does not start; after the outcome is decided it changes nothing.
Left to Python, a Ctrl-C during the imports would print a traceback, and one during the
interpreter's shutdown (which puts SIGINT back to its default) would end a command that had succeeded
by the signal itself, with no message.
"""

from __future__ import annotations


class CtrlC:
    """The SIGINT handler. `seen` also tells an interruption from a command's own exit status 130
    (Typer's silent Ctrl-C, or `tritondev run` returning its child's), so an interruption is always said."""

    def __init__(self) -> None:
        self.seen = False
        self.raising = False

    def __call__(self, signum: int, frame: object) -> None:
        self.seen = True
        if self.raising:
            raise KeyboardInterrupt
