"""A block held until done (bootstrap/core/interrupt.py): a Ctrl-C during it is raised as it ends, a second
one at once, and nothing is held where tritondev's handler is not the one raising."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator

import pytest

from bootstrap.core.interrupt import CtrlC, held_until_done


@pytest.fixture
def ctrl_c() -> Iterator[CtrlC]:
    handler = CtrlC()
    handler.say = lambda line: print(line, file=sys.stderr)
    previous = signal.signal(signal.SIGINT, handler)
    handler.raising = True
    try:
        yield handler
    finally:
        handler.raising = False
        signal.signal(signal.SIGINT, previous)


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # the handler runs in this (the main) thread before the next line


def test_one_ctrl_c_is_raised_when_the_block_ended(ctrl_c: CtrlC, capsys: pytest.CaptureFixture[str]) -> None:
    done = []
    with pytest.raises(KeyboardInterrupt), held_until_done("`git checkout`"):
        _ctrl_c()
        done.append("the rest of the block")
    assert done == ["the rest of the block"]
    assert ctrl_c.held_from is None and ctrl_c.seen and not ctrl_c.held_note
    # Said at once: the Ctrl-C was not lost, what it waits for, how to stop it now.
    assert capsys.readouterr().err == (
        "Ctrl-C: letting `git checkout` finish, so that it does not stop halfway; Ctrl-C again stops it now\n"
    )


def test_a_second_ctrl_c_raises_at_once(ctrl_c: CtrlC) -> None:
    done = []
    with pytest.raises(KeyboardInterrupt), held_until_done():
        _ctrl_c()
        done.append("after the first")
        _ctrl_c()
        done.append("after the second")
    assert done == ["after the first"]
    assert ctrl_c.held_from is None
    with pytest.raises(KeyboardInterrupt):  # outside a held block, one raises as before
        _ctrl_c()


def test_a_block_without_a_ctrl_c_raises_nothing(ctrl_c: CtrlC) -> None:
    with held_until_done():
        pass
    assert not ctrl_c.seen and ctrl_c.held_from is None


def test_an_inner_block_leaves_the_hold_to_the_outer_one(ctrl_c: CtrlC) -> None:
    done = []
    with pytest.raises(KeyboardInterrupt), held_until_done():
        with held_until_done():
            _ctrl_c()
        done.append("after the inner block")
    assert done == ["after the inner block"]


def test_nothing_is_held_when_the_handler_does_not_raise(ctrl_c: CtrlC) -> None:
    ctrl_c.raising = False  # before the command runs, or after its outcome is decided
    with held_until_done():
        _ctrl_c()
    assert ctrl_c.seen


def test_with_pythons_own_handler_the_block_is_cut_as_usual() -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = []
    try:
        with pytest.raises(KeyboardInterrupt), held_until_done():
            _ctrl_c()
            done.append("after")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert done == []


def test_outside_the_main_thread_the_block_runs_as_usual(ctrl_c: CtrlC) -> None:
    outcome: list[object] = []

    def work() -> None:
        with held_until_done():
            outcome.append(ctrl_c.held_from)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(10)
    assert outcome == [None]
