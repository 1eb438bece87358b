"""What the bisect commands check before anything runs or the workspace is made: a command to judge each commit
with, and refs that are refs; with no bisect recorded, reset has nothing to lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.context import AppContext, make_context
from bootstrap.core.errors import UsageError
from bootstrap.pipeline.bisect.entry import bisect_range, reset_bisect


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppContext:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return make_context({"workspace": str(tmp_path / "ws")}, logs=False)


def test_no_command_and_bad_refs_stop_before_the_workspace_is_made(ctx: AppContext, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no command to judge each commit with") as info:
        bisect_range(ctx, "triton", "v3.4.0", "main", "skip", None)
    assert info.value.fix == "tritondev bisect triton --good REF --bad REF -- python my_test.py"
    with pytest.raises(UsageError):
        bisect_range(ctx, "llvm", "--upload-pack=evil", "main", "bad", ["python", "t.py"])
    assert not (tmp_path / "ws").exists()


def test_reset_without_a_bisect_says_so_and_makes_nothing(ctx: AppContext, tmp_path: Path) -> None:
    result = reset_bisect(ctx)
    assert result.start is None and result.to_json()["reset"] is False and result.message
    assert not (tmp_path / "ws").exists()
