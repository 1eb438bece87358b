"""Captures on disk: a record that does not parse is reported, never fatal; KERNEL names one record; a repro
folder is written only where tritondev may write, and a crafted file list cannot widen what is removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.repro.make import _previous_files, _remove_stale
from bootstrap.repro.records import parse_record
from bootstrap.repro.store import load_capture, select
from tests.unit.repro.records_data import record


def _capture(folder: Path, records: dict[str, object]) -> Path:
    (folder / "kernels").mkdir(parents=True)
    (folder / "capture.json").write_text(json.dumps({"command": ["python", "model.py"], "returncode": 0}))
    for name, data in records.items():
        (folder / "kernels" / name).mkdir()
        (folder / "kernels" / name / "record.json").write_text(data if isinstance(data, str) else json.dumps(data))
    return folder


def test_a_broken_record_is_reported_and_the_others_are_read(tmp_path: Path) -> None:
    other = record(id="4242-0002-add_kernel", autotuning=True, captured_at=1.0)
    capture = load_capture(
        _capture(
            tmp_path / "c",
            {
                "4242-0001-add_kernel": record(),
                "4242-0002-add_kernel": other,
                "4242-0003-bad": "{not json",
                "4242-0004-moved": record(),
                "not-a-record": record(),
            },
        )
    )
    assert [r.id for r in capture.records] == ["4242-0002-add_kernel", "4242-0001-add_kernel"]
    assert dict(capture.unreadable).keys() == {"4242-0003-bad", "4242-0004-moved"}
    assert "is not its folder's name" in dict(capture.unreadable)["4242-0004-moved"]


def test_kernel_names_a_record_by_number_id_name_or_glob() -> None:
    chosen = parse_record(record())
    tuned = parse_record(record(id="4242-0002-add_kernel", autotuning=True))
    other = parse_record(record(id="4242-0003-mul_kernel", kernel="mul_kernel"))
    records = [tuned, chosen, other]
    assert select(records, "1") is tuned and select(records, "4242-0003-mul_kernel") is other
    assert select(records, "add_kernel") is chosen  # the one the program itself launched
    assert select(records, "mul_*") is other
    with pytest.raises(UsageError, match="2 records match"):
        select([parse_record(record()), parse_record(record(id="4242-0009-add_kernel"))], "add_kernel")
    with pytest.raises(UsageError, match="no captured kernel matches 'nope'"):
        select(records, "nope")


def test_a_folder_of_someone_elses_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="did not write"):
        _previous_files(tmp_path)


def test_a_crafted_file_list_removes_nothing_but_the_repros_own_files(tmp_path: Path) -> None:
    repro = tmp_path / "repro"
    (repro / "io").mkdir(parents=True)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep")
    (repro / "io" / "3.out").write_text("stale")
    (repro / "io" / "4.in").symlink_to(outside)
    (repro / "notes.txt").write_text("keep")
    (repro / ".tritondev-repro").write_text(
        "\n".join(
            ["kernel.py", "../precious.txt", "/etc/passwd", "notes.txt", "io/3.out", "io/4.in", "io/../../precious.txt"]
        )
    )
    listed = _previous_files(repro)
    assert listed == ["kernel.py", "io/3.out", "io/4.in"]
    _remove_stale(repro, listed, {"kernel.py"})
    assert not (repro / "io" / "3.out").exists()
    assert (repro / "io" / "4.in").is_symlink() and outside.read_text() == "keep"  # a link is never followed
    assert (repro / "notes.txt").read_text() == "keep"
