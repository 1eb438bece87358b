"""The tritondev program: the console command's entry point, and `python -m bootstrap`."""

from __future__ import annotations

import os
import signal
import sys

from bootstrap.core.interrupt import CtrlC

# The standard streams, in the order their descriptors are reopened (the lowest free one is taken).
_STANDARD = ((0, "stdin", os.O_RDONLY, "r"), (1, "stdout", os.O_WRONLY, "w"), (2, "stderr", os.O_WRONLY, "w"))


def reopen_closed_standard_streams() -> None:
    """A standard stream the caller closed (`tritondev config show >&-`, `test lit --json 2>&-`) is
    /dev/null from here on: what tritondev prints there is dropped, as a reader that went away gets it.

    Without this, Python leaves sys.stdout None (an AttributeError at the first print), and the first
    file tritondev opens takes the free descriptor 1 or 2, so that a child process's output, or our
    own, lands in a log or state file."""
    import io

    for fd, name, flags, mode in _STANDARD:
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, flags)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
            os.set_inheritable(fd, True)  # os.open makes it close-on-exec: child processes need it too
        if getattr(sys, name) is None:
            raw = io.FileIO(fd, mode, closefd=False)
            buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
            setattr(sys, name, io.TextIOWrapper(buffered, errors="backslashreplace", line_buffering=True))


def run() -> None:
    reopen_closed_standard_streams()  # before anything opens a file, which would take a free descriptor
    ctrl_c = CtrlC()
    # First, before the imports that take most of the start-up: a Ctrl-C from here on is tritondev's.
    signal.signal(signal.SIGINT, ctrl_c)
    try:
        from bootstrap.cli import main

        main(ctrl_c=ctrl_c)
    finally:
        # The outcome is decided. The interpreter's shutdown would put SIGINT back to its default, and a
        # Ctrl-C then would end the process by the signal, with no message, after the command finished.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # CPython remembers a KeyboardInterrupt that ended an exec of source text (dataclasses create their
        # methods that way, so a Ctrl-C during an import can) and, at exit, ends the process by SIGINT
        # instead of the exit code decided here, even for an interruption handled and reported. Each exec
        # of source text starts by forgetting it: this one does, after the last Ctrl-C that could count.
        exec("pass")
