"""What `config show` says a setting left to its default comes to here: the job counts sized on this machine,
the workspace venv setup will create, and "not set" for a setting with no default."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.context import make_context
from bootstrap.pipeline.host.settings_in_use import settings_in_use


def test_defaults_say_what_they_come_to_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No active environment: one (./shell/test run from an activated venv) would be the default's answer.
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX", "TRITONDEV_PYTHON"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    ctx = make_context({"workspace": str(tmp_path / "ws")}, logs=False)
    rows = {r.row.name: r for r in settings_in_use(ctx)}
    jobs = rows["jobs"]
    assert isinstance(jobs.effective, int) and jobs.effective >= 1 and jobs.note.startswith("sized here:")
    python = rows["python"]
    assert python.effective == str(tmp_path / "ws" / "venv" / "bin" / "python")
    assert "the workspace venv setup creates" in python.note
    assert rows["ccache_remote"].effective is None and rows["ccache_remote"].note.startswith("not set")
    assert python.to_json()["effective"] == python.shown
    assert not (tmp_path / "ws").exists()  # reading the settings creates no workspace


def test_a_given_interpreter_is_shown_with_who_chose_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    ctx = make_context({"workspace": str(tmp_path / "ws"), "python": "/opt/py/bin/python3"}, logs=False)
    (python,) = [r for r in settings_in_use(ctx) if r.row.name == "python"]
    assert python.shown == "/opt/py/bin/python3" and python.note.startswith("chosen by")
