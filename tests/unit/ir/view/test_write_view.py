"""`ir view` writes one page where it says: beside the dump (or the compared pair) unless --out names it, and
refuses a link at that name instead of following it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bootstrap.core.errors import TritondevError
from bootstrap.ir.view.write import PAGE_NAME, default_out, write_view

DUMPS = Path(__file__).parent / "dumps" / "add-3.9-cuda90-lineinfo"


def test_the_page_goes_beside_what_it_shows(tmp_path: Path) -> None:
    folder, other, raw = tmp_path / "dump", tmp_path / "other", tmp_path / "x.mlir"
    folder.mkdir()
    raw.write_text("")
    assert default_out(folder, None) == folder / PAGE_NAME
    assert default_out(folder, other) == folder / "ir-view-vs-other.html"
    assert default_out(raw, None) == tmp_path / "x.mlir.html"


def test_one_page_is_written_and_describes_the_dump(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    shutil.copytree(DUMPS, dump)
    before = sorted(p.name for p in dump.iterdir())
    result = write_view(dump, None, None, None)
    assert result.out == dump / PAGE_NAME and result.out.stat().st_size == result.bytes > 0
    assert sorted(p.name for p in dump.iterdir()) == sorted([*before, PAGE_NAME])
    (kernel,) = result.to_json()["dumps"][0]["kernels"]  # type: ignore[index]
    assert kernel["passes"] == 13 and kernel["name"]
    assert "<html" in result.out.read_text().lower()


def test_a_link_at_the_pages_name_is_refused_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    link = tmp_path / "page.html"
    link.symlink_to(victim)
    with pytest.raises(TritondevError):
        write_view(DUMPS, None, None, link)
    assert victim.read_text() == "keep" and link.is_symlink()
