"""Exit codes and error rendering of the CLI shell (in-process, through bootstrap.cli.main)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap import cli
from bootstrap.core import settings
from bootstrap.core.errors import ExitCode
from bootstrap.core.settings_table import Settings


def run_main(args: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    return int(info.value.code or 0)


def test_unexpected_exception_writes_crash_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An unexpected exception cannot be provoked through real input (that would be a bug we fix), so
    # this test injects one to prove the handler: exit 70, short message, crash log with traceback.
    def explode(*_a: object, **_k: object) -> Settings:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(settings, "load_settings", explode)
    monkeypatch.setattr("bootstrap.core.context.load_settings", explode)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert run_main(["config", "show"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" not in err
    logs = list(tmp_path.glob("crash-*.log"))
    assert logs and "RuntimeError: kaboom" in logs[0].read_text()
    assert "platform" in logs[0].read_text()


