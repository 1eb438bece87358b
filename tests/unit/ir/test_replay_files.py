"""What `opt` reads and writes is bounded: a dump or reproducer that is not a regular file, a pass name
from a dump that tries to leave the replay folder, an --out in the way, a user's pass.diff."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.ir.dumps import MAX_PASS_NUMBER, DumpError, load_dump
from bootstrap.ir.replay import Replay, default_folder, reproducer_passes, write_inputs
from tests.support.snapshot import snapshot

WARPS4 = Path(__file__).parent / "dumps" / "triton-3.9-cuda90-warps4"


def _replay(folder: Path, dump: Path, pass_arg: str) -> Replay:
    loaded = load_dump(dump)
    stage = next(s for s in loaded.stages if s.arg == pass_arg)
    after = next((s for s in loaded.stages if s.number > stage.number and s.is_pass_input), None)
    return Replay(folder, folder / "input.mlir", stage=stage, after=after)


def test_a_fifo_given_as_dump_or_reproducer_is_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "dump.mlir"
    os.mkfifo(fifo)
    with pytest.raises(DumpError, match="not a regular file"):
        load_dump(fifo)  # opening a FIFO for reading would block: it is never opened that way
    with pytest.raises(UsageError, match="not a regular file"):
        reproducer_passes(fifo)


def test_a_pass_name_from_the_dump_stays_one_folder_name(tmp_path: Path) -> None:
    raw = tmp_path / "evil" / "raw.mlir"
    raw.parent.mkdir()
    raw.write_text(
        "// -----// IR Dump Before Evil (a/../../../../escaped) ('builtin.module' operation) //----- //\nmodule {\n}\n"
    )
    stage = load_dump(raw).stages[0]
    folder = default_folder(raw, stage)
    assert folder.parent == raw.with_name("raw.mlir.opt") and folder.name == "0001-a-..-..-..-..-escaped"
    long = "p" * 300
    raw.write_text(f"// -----// IR Dump Before Long ({long}) ('builtin.module' operation) //----- //\nmodule {{\n}}\n")
    assert len(default_folder(raw, load_dump(raw).stages[0]).name) <= 90


def test_pass_numbers_out_of_range_are_a_broken_index(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    shutil.copytree(WARPS4, dump)
    index = json.loads((dump / "index.json").read_text())
    index["passes"][0]["number"] = 10**280
    (dump / "index.json").write_text(json.dumps(index))
    with pytest.raises(DumpError, match=f"0 to {MAX_PASS_NUMBER}"):
        load_dump(dump)


@pytest.mark.parametrize("in_the_way", ["out-is-a-file", "pass-diff-is-a-folder", "input-is-a-fifo"])
def test_an_out_folder_in_the_way_changes_nothing(tmp_path: Path, in_the_way: str) -> None:
    out = tmp_path / "out"
    if in_the_way == "out-is-a-file":
        out.write_text("mine\n")
    elif in_the_way == "pass-diff-is-a-folder":
        (out / "pass.diff").mkdir(parents=True)
    else:
        out.mkdir()
        os.mkfifo(out / "input.mlir")
    before = snapshot(tmp_path)
    with pytest.raises(UsageError):
        write_inputs(_replay(out, WARPS4, "tritongpu-coalesce"), WARPS4)
    assert snapshot(tmp_path) == before


def test_a_users_pass_diff_is_never_deleted_nor_shown(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "pass.diff").write_text("my diff\n")
    (out / "notes.txt").write_text("keep\n")
    replay = _replay(out, WARPS4, "tritongpu-F32DotTC")  # the dump's last pass: no IR after it
    write_inputs(replay, WARPS4)
    assert (out / "pass.diff").read_text() == "my diff\n" and (out / "notes.txt").read_text() == "keep\n"
    assert replay.pass_diff_written is None and (out / "input.mlir").is_file()
    coalesce = _replay(out, WARPS4, "tritongpu-coalesce")
    write_inputs(coalesce, WARPS4)
    assert coalesce.pass_diff_written == out / "pass.diff" and "my diff" not in (out / "pass.diff").read_text()
