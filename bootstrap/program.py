"""The tritondev program: the console command's entry point, and `python -m bootstrap`."""

from __future__ import annotations

import signal

from bootstrap.core.interrupt import CtrlC


def run() -> None:
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
