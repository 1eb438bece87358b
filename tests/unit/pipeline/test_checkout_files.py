"""Files setup writes into a checkout never replace the user's own: CMakeUserPresets.json is written
only where there is none or where setup wrote the one there."""

from __future__ import annotations

import os
from pathlib import Path

from bootstrap.pipeline.recipe.files import render_cmake_user_presets
from bootstrap.pipeline.setup.checkout_files import write_presets

OURS = render_cmake_user_presets([("A", "1")], Path("/build"), 2, display="Triton")


def test_presets_are_written_where_there_are_none_or_ours(tmp_path: Path) -> None:
    path = tmp_path / "CMakeUserPresets.json"
    assert write_presets(path, OURS) is None and path.read_text() == OURS
    newer = render_cmake_user_presets([("A", "2")], Path("/build"), 2, display="Triton")
    assert write_presets(path, newer) is None and path.read_text() == newer


def test_the_users_own_presets_are_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "CMakeUserPresets.json"
    mine = '{"version": 3, "configurePresets": [{"name": "mine"}]}\n'
    path.write_text(mine)
    notice = write_presets(path, OURS)
    assert notice and "left as it is" in notice and path.read_text() == mine
    os.unlink(path)
    os.mkfifo(path)  # not even opened for writing, nor read until it blocks
    assert write_presets(path, OURS) and path.is_fifo()
