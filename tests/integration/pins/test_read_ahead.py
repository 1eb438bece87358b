"""Files read ahead at a commit (bootstrap.git.blobs.read_regular_files: two git commands for all) read
exactly as one by one (`_read_blob`), whatever they hold: CRLF line ends, bytes that are not UTF-8, no
final newline, an empty file, text that looks like the batch's own header, a folder where a file is
looked for, a symlink (left to the one-by-one reader, which follows it), a path the commit lacks."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bootstrap.core.errors import MismatchError
from bootstrap.core.process.runner import Runner
from bootstrap.git.blobs import _read_blob, read_regular_files
from bootstrap.git.layout import LAYOUT_FILES, detect_layout
from tests.world.world import World

FILES: dict[str, bytes] = {
    "crlf.txt": b"one\r\ntwo\r\n",
    "latin1.txt": b"caf\xe9\n",
    "no-newline.txt": b"last line",
    "empty.txt": b"",
    "header-like.txt": b"@@tritondev-0123 abc\n@@tritondev-\nblob 12\n",
    "folder/inner.txt": b"in a folder\n",
    "target.txt": b"the link's target\n",
}


def _repo(root: Path) -> tuple[Path, str]:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout

    root.mkdir()
    git("init", "-q")
    for name, data in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "link.txt").symlink_to("target.txt")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "files")
    return root / ".git", git("rev-parse", "HEAD").strip()


def test_read_ahead_reads_what_one_by_one_reads(tmp_path: Path) -> None:
    git_dir, commit = _repo(tmp_path / "repo")
    runner = Runner(silent=True)
    paths = [*FILES, "folder", "link.txt", "missing.txt"]
    ahead = read_regular_files(runner, git_dir, commit, paths, "test")
    assert "link.txt" not in ahead  # a symlink is followed by the one-by-one reader
    assert ahead["missing.txt"] is None and ahead["folder"] is None
    for path in paths:
        if path in ahead:
            assert ahead[path] == _read_blob(runner, git_dir, commit, path, "test"), path
    assert ahead["crlf.txt"] == "one\ntwo\n" and ahead["no-newline.txt"] == "last line" and ahead["empty.txt"] == ""
    assert _read_blob(runner, git_dir, commit, "link.txt", "test") == "the link's target\n"


def test_every_file_the_layout_reads_is_read_ahead(world: World) -> None:
    """LAYOUT_FILES names every file detect_layout reads at each of the world's Triton commits (a file it
    forgot would still be read, one by one: slower, never wrong)."""
    runner = Runner(silent=True)
    for label, commit in world.triton_commits.items():
        asked: list[str] = []

        def read(path: str, commit: str = commit, asked: list[str] = asked) -> str | None:
            asked.append(path)
            return _read_blob(runner, world.bare["triton"], commit, path, "test")

        try:
            detect_layout(read)
        except MismatchError as exc:  # a Triton 2.x pin is refused, from the files it read so far
            assert "predates what tritondev builds" in exc.message, (label, exc.message)
        assert set(asked) <= set(LAYOUT_FILES), (label, sorted(set(asked) - set(LAYOUT_FILES)))
