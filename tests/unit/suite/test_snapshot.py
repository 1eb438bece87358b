"""The snapshots that prove a command changed nothing see every change, also where they reuse a hash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import snapshot as snapshots
from tests.support.snapshot import diff, snapshot


def test_a_rewrite_with_the_same_size_and_mtime_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Content changed, size and mtime put back: ctime moved, so the file is read again."""
    file = tmp_path / "f"
    file.write_text("aaaa")
    monkeypatch.setattr(snapshots, "RACY_NS", -(10**18))  # every file counts as old enough to keep its hash
    before = snapshot(tmp_path)
    assert str(file) in snapshots._HASHES
    info = file.stat()
    file.write_text("bbbb")
    os.utime(file, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert file.stat().st_size == info.st_size and file.stat().st_mtime_ns == info.st_mtime_ns
    assert diff(before, snapshot(tmp_path)) == [f"changed {file}"]


def test_a_file_changed_just_before_its_hash_is_never_kept(tmp_path: Path) -> None:
    file = tmp_path / "f"
    file.write_text("aaaa")
    snapshot(tmp_path)
    assert str(file) not in snapshots._HASHES  # changed within RACY_NS of its hash: read again next time


def test_links_folders_fifos_and_modes(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    (tmp_path / "l").symlink_to("d/f")
    os.mkfifo(tmp_path / "p")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"")
    before = snapshot(tmp_path)
    assert before[str(tmp_path / "l")] == ("link", 0, "d/f")
    assert before[str(tmp_path / "p")][0] == "special"
    assert str(tmp_path / "__pycache__" / "x.pyc") not in before
    os.chmod(tmp_path / "d" / "f", 0o600)
    (tmp_path / "l").unlink()
    (tmp_path / "l").symlink_to("d")
    assert diff(before, snapshot(tmp_path)) == [f"changed {tmp_path / 'd' / 'f'}", f"changed {tmp_path / 'l'}"]
    assert snapshot(tmp_path / "absent") == {str(tmp_path / "absent"): ("absent", 0, "")}
