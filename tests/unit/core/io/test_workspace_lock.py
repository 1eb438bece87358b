"""The workspace lock: exclusive for what changes the workspace or its build folder (setup, build,
bisect), shared for what only reads the build folder (test). flock locks belong to an open file, so two
locks taken here conflict as two processes' would (tests/integration/contributing/test_test_targets.py
shows it across real processes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import WorkspaceLocked
from bootstrap.core.io.workspace import Workspace


def test_two_readers_share_and_a_builder_waits_for_neither(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    with workspace.lock("test lit", shared=True), workspace.lock("test cpp", shared=True):
        with pytest.raises(WorkspaceLocked, match=r"locked by another tritondev \(pid \d+ test lit \(shared\)\)"):
            with workspace.lock("build"):
                pass
    with workspace.lock("build"):  # both readers gone
        pass


def test_a_reader_is_refused_during_a_build_which_it_names(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    with workspace.lock("build"):
        with pytest.raises(WorkspaceLocked, match=r"\(pid \d+ build\)"):
            with workspace.lock("test nogpu", shared=True):
                pass
    assert workspace.lock_path.read_text() == ""  # released and cleared


def test_the_first_reader_keeps_its_name_while_it_holds(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    with workspace.lock("test a", shared=True):
        with workspace.lock("test b", shared=True):
            assert workspace.lock_path.read_text().endswith(" test a (shared)\n")
        assert workspace.lock_path.read_text().endswith(" test a (shared)\n")  # b cleared nothing of a's
    assert workspace.lock_path.read_text() == ""
