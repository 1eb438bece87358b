"""PATH for `env`/`run`: the target's folder first, unless python3 there is already the first one."""

from __future__ import annotations

import os
from pathlib import Path

from bootstrap.env.exports import path_with_first


def _python(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "python3").write_text("")
    return folder


def test_the_target_folder_goes_first_only_when_needed(tmp_path: Path) -> None:
    system, venv = _python(tmp_path / "usr-bin"), _python(tmp_path / "venv" / "bin")
    empty = tmp_path / "empty"
    empty.mkdir()
    path = os.pathsep.join([str(empty), str(system)])
    assert path_with_first(venv, path) == os.pathsep.join([str(venv), path])
    assert path_with_first(system, path) is None  # its python3 is already the one found first
    assert path_with_first(venv, "") == str(venv)
    link = tmp_path / "link"
    link.symlink_to(venv)
    assert path_with_first(venv, os.pathsep.join([str(link), str(system)])) is None
