"""`repro ls|show|capture`'s output (bootstrap.commands.repro.render) over records as the hook writes them: one
row per record with what was saved, the record's details, and what a capture that caught nothing says."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.commands.repro.render import capture_json, listing_json, print_capture, print_listing, print_record
from bootstrap.repro.capture import CaptureReport, CaptureRequest
from bootstrap.repro.records import parse_record
from bootstrap.repro.store import Capture, CaptureInfo
from tests.unit.repro.records_data import record


def _capture(folder: Path, *records: dict[str, object]) -> Capture:
    info = CaptureInfo(("python", "model.py"), 0, 1795757092.0)
    return Capture(folder, info, [parse_record(r) for r in records], [("4242-0002-x", "not JSON")], ["boom"])


def test_the_listing_has_a_row_per_record_and_names_what_was_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = _capture(tmp_path / "cap", record())
    document = listing_json(capture)
    (row,) = document["kernels"]
    assert (row["number"], row["kernel"], row["launches"], row["grid"]) == (1, "add_kernel", 3, [4, 1, 1])
    assert row["io_bytes"] == 4400 and row["io_skipped"] == [] and row["origin"] == "inductor"
    assert document["unreadable"] == [{"id": "4242-0002-x", "why": "not JSON"}]
    print_listing(capture, tmp_path)
    out, err = capsys.readouterr()
    assert "python model.py -> exit 0" in out and "add_kernel" in out and "x3" in out
    assert "record 4242-0002-x not read: not JSON" in err and "capture hook: boom" in err


def test_a_record_shows_its_specialization_and_storages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = _capture(tmp_path / "cap", record())
    print_record(capture, capture.records[0])
    out = capsys.readouterr().out
    assert "x_ptr: *fp32" in out and "BLOCK=256" in out and "changed by the launch" in out
    assert f"{tmp_path / 'cap' / 'kernels' / '4242-0001-add_kernel'}" in out


def test_a_capture_that_caught_nothing_says_why_that_may_be(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = CaptureRequest(("python", "m.py"), kernel="mine*")
    empty = CaptureReport(tmp_path, 0, Capture(tmp_path, CaptureInfo(returncode=0)), request)
    print_capture(empty)
    assert "launched no Triton kernel named mine*" in capsys.readouterr().err
    dry = capture_json(CaptureReport(tmp_path, 0, None, request))
    assert dry["dry_run"] is True and "kernels" not in dry and dry["kernel"] == "mine*"
