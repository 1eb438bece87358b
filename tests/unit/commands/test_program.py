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


def test_the_parser_is_built_for_the_command_named_first_and_whole_otherwise() -> None:
    """Only the command or group named first is turned into the option parser; anything else (options
    first, --help, an unknown or missing name) gets the whole app, whose errors name every command."""
    from bootstrap.cli import _narrowed, build_app

    app = build_app()
    setup = _narrowed(app, ["setup", "--dry-run"])
    assert [c.name for c in setup.registered_commands] == ["setup"] and setup.registered_groups == []
    cache = _narrowed(app, ["cache", "ls"])
    assert cache.registered_commands == [] and [g.name for g in cache.registered_groups] == ["cache"]
    for whole in (["--json", "setup"], ["--help"], ["stup"], []):
        assert _narrowed(app, whole) is app
    assert len(app.registered_commands) > 1  # the app itself is left whole
