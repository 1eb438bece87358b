"""Exit codes and error rendering of the CLI shell (in-process, through bootstrap.cli.main)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap import cli
from bootstrap.core.errors import ExitCode
from bootstrap.core.settings import settings
from bootstrap.core.settings.settings_table import Settings


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
    logs = list(tmp_path.glob("tritondev-crash-*/crash-*.log"))
    assert logs and "RuntimeError: kaboom" in logs[0].read_text()
    assert "platform" in logs[0].read_text()


def test_a_crash_log_is_private_and_unpredictable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before the workspace is known the crash log goes to the temporary folder, which others can write:
    links planted at every name a clock would give (the old `/tmp/crash-<second>.log`) are never
    followed; each crash gets a new file, readable by its owner only, in a folder of its own (0700)."""
    import os
    import stat
    import tempfile
    import time

    def explode(*_a: object, **_k: object) -> Settings:
        raise RuntimeError("kaboom")

    monkeypatch.setattr("bootstrap.core.context.load_settings", explode)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    now = time.time()
    for second in range(-2, 30):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now + second))
        (tmp_path / f"crash-{stamp}.log").symlink_to(victim)
    shown = []
    for _ in range(2):
        assert run_main(["config", "show"]) == ExitCode.INTERNAL
        err = capsys.readouterr().err
        shown.append(Path(err.split("crash log was written to ")[1].split(";")[0]))
    assert victim.read_text() == "mine\n"
    assert shown[0] != shown[1] and shown[0].parent != shown[1].parent
    for log in shown:
        assert log.parent.parent == tmp_path and "RuntimeError: kaboom" in log.read_text()
        assert stat.S_IMODE(log.stat().st_mode) == 0o600 and not log.is_symlink()
        assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700 and log.parent.stat().st_uid == os.getuid()
