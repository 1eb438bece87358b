"""Exit codes and error rendering of the CLI shell (in-process, through bootstrap.cli.main)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap import cli
from bootstrap.core.errors import ExitCode
from bootstrap.core.settings.settings_table import Settings


def run_main(args: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    return int(info.value.code or 0)


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["--help"]) == 0
    assert run_main(["--version"]) == 0
    assert "tritondev" in capsys.readouterr().out


def test_unknown_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["no-such-command"]) == ExitCode.USAGE


def test_bad_option_value_is_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITONDEV_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("TRITONDEV_JOBS", "-4")
    assert run_main(["config", "show"]) == ExitCode.USAGE


def test_keyboard_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C is simulated by raising KeyboardInterrupt where a command would be interrupted; the
    # real-signal version lives in the fault suite.
    def interrupted(*_a: object, **_k: object) -> Settings:
        raise KeyboardInterrupt

    monkeypatch.setattr("bootstrap.core.context.load_settings", interrupted)
    assert run_main(["config", "show"]) == ExitCode.INTERRUPTED


def test_json_mode_error_is_one_json_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    (tmp_path / "tritondev.toml").write_text("nope = 1\n")
    monkeypatch.setenv("TRITONDEV_WORKSPACE", str(tmp_path))
    assert run_main(["config", "show", "--json"]) == ExitCode.USAGE
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["exit_code"] == 2 and "nope" in data["message"]


def test_a_reported_failure_adds_nothing_to_the_output(capsys: pytest.CaptureFixture[str]) -> None:
    """doctor/verify/compile --json: the report is the one JSON document; the exit code says it failed."""
    import json

    from bootstrap.core.context import invocation
    from bootstrap.core.errors import CheckFailed

    invocation().json = True
    cli._report_error(CheckFailed("verify failed: add", fix="see above", reported=True))
    assert capsys.readouterr() == ("", "")
    cli._report_error(CheckFailed("verify failed: add", fix="see above"))
    captured = capsys.readouterr()
    assert json.loads(captured.out)["exit_code"] == ExitCode.CHECK_FAILED
    assert "fix: see above" in captured.err
