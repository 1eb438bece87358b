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


def test_compile_commands_link_replaces_only_a_link_into_the_builds(tmp_path: Path) -> None:
    """setup.py links it from 3.5 (#7305): a link into the build folder is its or ours and may move to the
    build of now; a file, or a link of the user's pointing elsewhere, stays as it is."""
    from bootstrap.pipeline.setup.checkout_files import link_compile_commands

    checkout = tmp_path / "triton"
    builds = checkout / "build"
    old, new = builds / "cmake.linux-x86_64-cpython-3.10", builds / "cmake.linux-x86_64-cpython-3.11"
    for build in (old, new):
        build.mkdir(parents=True)
        (build / "compile_commands.json").write_text("[]\n")
    link = checkout / "compile_commands.json"
    assert link_compile_commands(new, checkout, builds) and os.readlink(link) == str(new / "compile_commands.json")
    link.unlink()
    link.symlink_to(old / "compile_commands.json")  # setup.py's, at another Python's build
    assert link_compile_commands(new, checkout, builds) and os.readlink(link) == str(new / "compile_commands.json")
    mine = tmp_path / "elsewhere" / "compile_commands.json"
    mine.parent.mkdir()
    mine.write_text("[]\n")
    for target in (str(mine), "build/../../elsewhere/compile_commands.json", "build"):
        link.unlink()
        link.symlink_to(target)
        assert not link_compile_commands(new, checkout, builds)
        assert os.readlink(link) == target, target
    link.unlink()
    link.write_text("my own\n")
    assert not link_compile_commands(new, checkout, builds) and link.read_text() == "my own\n"
    link.unlink()
    link.symlink_to("build/cmake.linux-x86_64-cpython-3.10/compile_commands.json")  # relative, into the builds
    assert link_compile_commands(new, checkout, builds) and os.readlink(link) == str(new / "compile_commands.json")
