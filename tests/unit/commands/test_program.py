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


def test_a_start_builds_only_the_command_named_first_and_the_whole_app_otherwise() -> None:
    """Each command module registers the one command or group of its name, so that a start imports the
    module of the command it runs and no other; anything else (options first, --help, an unknown or
    missing name) gets the whole app, whose errors name every command."""
    from bootstrap.cli import _command_named_first, build_app
    from bootstrap.commands import COMMAND_MODULES

    whole = build_app()
    every = [c.name for c in whole.registered_commands] + [g.name for g in whole.registered_groups]
    assert sorted(str(name) for name in every) == sorted(COMMAND_MODULES)
    for name in COMMAND_MODULES:
        alone = build_app(name)
        assert [c.name for c in alone.registered_commands] + [g.name for g in alone.registered_groups] == [name]
    assert _command_named_first(["setup", "--dry-run"]) == "setup"
    assert _command_named_first(["cache", "ls"]) == "cache"
    for line in (["--json", "setup"], ["--help"], ["stup"], ["ls"], []):
        assert _command_named_first(line) is None
