"""The program's entry (bootstrap.program.run, what the console command and `python -m bootstrap` call):
it runs the CLI, and leaves Ctrl-C ignored once the outcome is decided (tests/integration/core/test_ctrl_c.py
proves the rest with real signals)."""

from __future__ import annotations

import signal
import sys

import pytest

from bootstrap import __version__, program


def test_run_answers_and_ignores_ctrl_c_after_the_outcome(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["tritondev", "--version"])
    before = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as info:
            program.run()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert info.value.code in (0, None)
    assert __version__ in capsys.readouterr().out
