"""Step logs (core.step_logs): a log that cannot be written is skipped, never an error."""

from __future__ import annotations

from pathlib import Path

from bootstrap.core.process.step_logs import log_path, note_exit_status, open_log


def test_an_unwritable_log_folder_skips_the_log_and_its_exit_status(tmp_path: Path) -> None:
    blocked = tmp_path / "logs"
    blocked.write_text("a file where the log folder should be\n")
    path = log_path(blocked, "triton build")
    assert path == blocked / "triton_build.log"
    assert open_log(path, ("ninja",), tmp_path, fresh=True) is None
    note_exit_status(path, 1)  # the streamed step ends: nothing to append to, no error
    assert blocked.read_text() == "a file where the log folder should be\n"


def test_the_exit_status_ends_a_written_log(tmp_path: Path) -> None:
    path = log_path(tmp_path / "logs", "llvm-build")
    log = open_log(path, ("ninja", "-C", "build"), tmp_path, fresh=True)
    assert log is not None and path is not None
    log.close()
    note_exit_status(path, 3)
    assert path.read_text().splitlines() == ["$ ninja -C build", f"# cwd: {tmp_path}", "# exit status 3"]
