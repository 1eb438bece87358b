"""core.writes: every write opens a regular file or creates one, follows no link below the workspace,
never blocks on a FIFO, masks secrets, and writes strict JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import ExitCode
from bootstrap.core.io import writes


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws é"
    (root / "state").mkdir(parents=True)
    writes.anchor(root)
    return root


def user_file(tmp_path: Path) -> Path:
    mine = tmp_path / "mine.txt"
    mine.write_text("the user's own bytes\n")
    return mine


def make(kind: str, path: Path, tmp_path: Path) -> None:
    if kind == "link":
        path.symlink_to(user_file(tmp_path))
    elif kind == "dangling link":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "folder":
        path.mkdir()
        (path / "inside").write_text("x")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to a folder":
        (tmp_path / "folder").mkdir(exist_ok=True)
        path.symlink_to(tmp_path / "folder")


KINDS = ("link", "dangling link", "folder", "fifo", "link to a folder")
OPERATIONS = {
    "replace": lambda p: writes.replace_text(p, "new\n"),
    "truncate": lambda p: os.close(writes.open_file(p)),
    "append": lambda p: os.close(writes.open_file(p, writes.Mode.APPEND)),
    "update": lambda p: os.close(writes.open_file(p, writes.Mode.UPDATE)),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_path_that_is_not_a_regular_file_is_exit_2_and_untouched(
    ws: Path, tmp_path: Path, kind: str, operation: str
) -> None:
    path = ws / "state" / "lock"
    make(kind, path, tmp_path)
    before = os.lstat(path)
    with pytest.raises(writes.NotWritable) as raised:
        OPERATIONS[operation](path)
    assert raised.value.exit_code == ExitCode.USAGE and str(path) in raised.value.message
    after = os.lstat(path)
    assert (before.st_mode, before.st_ino, before.st_size) == (after.st_mode, after.st_ino, after.st_size)
    if kind == "link":
        assert (tmp_path / "mine.txt").read_text() == "the user's own bytes\n"
    assert not (tmp_path / "nowhere").exists()  # a dangling link's target is not created either
    assert sorted(p.name for p in (ws / "state").iterdir()) == ["lock"]  # no temporary left


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_folder_on_the_way_that_is_a_link_is_refused(ws: Path, tmp_path: Path, operation: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / "logs").symlink_to(elsewhere)
    with pytest.raises(writes.NotWritable, match="logs is a symbolic link"):
        OPERATIONS[operation](ws / "logs" / "bisect" / "result.json")
    assert list(elsewhere.iterdir()) == []


def test_regular_files_are_written_and_missing_folders_made(ws: Path) -> None:
    writes.replace_text(ws / "logs" / "bisect" / "result.json", "one\n")
    assert (ws / "logs" / "bisect" / "result.json").read_text() == "one\n"
    fd = writes.open_file(ws / "logs" / "step.log", writes.Mode.APPEND)
    os.write(fd, b"a\n")
    os.close(fd)
    fd = writes.open_file(ws / "logs" / "step.log", writes.Mode.APPEND)
    os.write(fd, b"b\n")
    os.close(fd)
    assert (ws / "logs" / "step.log").read_text() == "a\nb\n"
    os.close(writes.open_file(ws / "logs" / "step.log"))
    assert (ws / "logs" / "step.log").read_text() == ""


def test_the_workspace_itself_may_be_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "ws link"
    link.symlink_to(real)
    writes.anchor(link)
    writes.replace_text(link / "state" / "settings.json", "{}\n")
    assert (real / "state" / "settings.json").read_text() == "{}\n"


def test_text_is_masked_unless_verbatim(ws: Path) -> None:
    writes.replace_text(ws / "a", "git fetch https://tok:x-oauth-basic@h/x\n")
    assert "tok" not in (ws / "a").read_text()
    writes.replace_text(ws / "b", "export A='https://u:p@h/x'\n", verbatim=True)
    assert (ws / "b").read_text() == "export A='https://u:p@h/x'\n"


@given(
    st.recursive(
        st.floats() | st.integers() | st.text(max_size=5) | st.none(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=10,
    )
)
def test_json_is_always_rfc_8259(data: object) -> None:
    text = writes.strict_json(data)

    def no_constants(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    json.loads(text, parse_constant=no_constants)


def test_a_copy_keeps_mode_and_times_and_never_writes_through_a_link(ws: Path, tmp_path: Path) -> None:
    tool = tmp_path / "ptxas"
    tool.write_bytes(b"\x7fELF tool")
    tool.chmod(0o755)
    os.utime(tool, ns=(1_500_000_000_000_000_000, 1_500_000_000_000_000_000))
    writes.replace_copy(ws / "bin" / "ptxas", tool)
    copied = (ws / "bin" / "ptxas").stat()
    assert (ws / "bin" / "ptxas").read_bytes() == b"\x7fELF tool" and copied.st_mode & 0o777 == 0o755
    assert copied.st_mtime_ns == 1_500_000_000_000_000_000
    (ws / "bin" / "nvdisasm").symlink_to(user_file(tmp_path))
    with pytest.raises(writes.NotWritable):
        writes.replace_copy(ws / "bin" / "nvdisasm", tool)
    assert (tmp_path / "mine.txt").read_text() == "the user's own bytes\n"


@pytest.mark.parametrize("kind", (*KINDS, "file"))
def test_create_writes_only_where_nothing_is(ws: Path, tmp_path: Path, kind: str) -> None:
    """An editor file tritondev offers (.clangd): written only where nothing is; anything there stays."""
    path = ws / "src" / ".clangd"
    path.parent.mkdir()
    if kind == "file":
        path.write_text("the user's own .clangd\n")
    else:
        make(kind, path, tmp_path)
    before = os.lstat(path)
    assert writes.create_text(path, "CompileFlags:\n") is False
    after = os.lstat(path)
    assert (before.st_mode, before.st_ino, before.st_size) == (after.st_mode, after.st_ino, after.st_size)
    assert not (tmp_path / "nowhere").exists() and sorted(p.name for p in path.parent.iterdir()) == [".clangd"]
    if kind == "link":
        assert (tmp_path / "mine.txt").read_text() == "the user's own bytes\n"
    fresh = ws / "src" / "other" / ".clangd"
    assert writes.create_text(fresh, "CompileFlags:\n") is True and fresh.read_text() == "CompileFlags:\n"


def test_create_refuses_a_folder_on_the_way_that_is_a_link(ws: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / "src").symlink_to(elsewhere)
    with pytest.raises(writes.NotWritable, match="src is a symbolic link"):
        writes.create_text(ws / "src" / "triton" / ".clangd", "x\n")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("kind", ("link", "dangling link", "fifo", "file"))
def test_a_fresh_file_replaces_what_is_at_its_name_without_opening_it(ws: Path, tmp_path: Path, kind: str) -> None:
    """A log a program appends to (distcc's): a link there goes (its target keeps its bytes), a FIFO goes
    (never opened: that would hang), an older log goes; an empty regular file is left."""
    path = ws / "logs" / "distcc-llvm-build.log"
    path.parent.mkdir()
    if kind == "file":
        path.write_text("an earlier build's log\n")
    else:
        make(kind, path, tmp_path)
    writes.fresh_file(path)
    assert not path.is_symlink() and path.is_file() and path.read_bytes() == b""
    if kind == "link":
        assert (tmp_path / "mine.txt").read_text() == "the user's own bytes\n"
    assert not (tmp_path / "nowhere").exists()


def test_a_fresh_file_refuses_a_folder_and_a_linked_folder_on_the_way(ws: Path, tmp_path: Path) -> None:
    (ws / "logs" / "distcc-llvm-build.log").mkdir(parents=True)
    (ws / "logs" / "distcc-llvm-build.log" / "inside").write_text("x")
    with pytest.raises(writes.NotWritable, match="is a folder"):
        writes.fresh_file(ws / "logs" / "distcc-llvm-build.log")
    assert (ws / "logs" / "distcc-llvm-build.log" / "inside").read_text() == "x"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / "state" / "logs").symlink_to(elsewhere)
    with pytest.raises(writes.NotWritable, match="logs is a symbolic link"):
        writes.fresh_file(ws / "state" / "logs" / "distcc-triton-install.log")
    assert list(elsewhere.iterdir()) == []


def test_a_replaced_file_may_keep_its_permissions(ws: Path) -> None:
    path = ws / "test" / "coalesce.mlir"
    writes.replace_text(path, "// RUN: old\n", verbatim=True, permissions=0o600)
    assert path.stat().st_mode & 0o777 == 0o600
    writes.replace_text(path, "// RUN: new\n", verbatim=True)
    assert path.stat().st_mode & 0o777 == 0o644 and path.read_text() == "// RUN: new\n"


def test_remove_file_removes_a_regular_file_and_nothing_else(tmp_path: Path) -> None:
    """What a failed setup puts back (state/last-setup.json it made): a file goes; a link, a folder or a FIFO
    at that name stays, refused; a name that is not there is no error."""
    writes.anchor(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    record = state / "last-setup.json"
    record.write_text("{}")
    writes.remove_file(record)
    assert not record.exists()
    writes.remove_file(record)  # already gone
    writes.remove_file(tmp_path / "no-folder" / "last-setup.json")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    record.symlink_to(victim)
    with pytest.raises(writes.NotWritable):
        writes.remove_file(record)
    assert record.is_symlink() and victim.read_text() == "keep"
    record.unlink()
    os.mkfifo(record)
    with pytest.raises(writes.NotWritable):
        writes.remove_file(record)
    assert record.exists()
