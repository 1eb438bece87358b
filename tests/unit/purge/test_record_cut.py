"""A RECORD that pip was killed while writing (kill -9 during `pip install`), or that holds NUL bytes:
read up to the damage, never an exception (which would be exit 70 on the re-run of setup or purge)."""

from __future__ import annotations

from pathlib import Path

from bootstrap.purge.metadata import parse_record, read_dist, record_hashes

WHOLE = "triton/__init__.py,sha256=AAAA,10\ntriton/language/core.py,sha256=BBBB,20\n"


def test_a_record_cut_mid_row_lists_the_rows_before_it() -> None:
    assert parse_record(WHOLE + '"triton/_C/libtri') == [
        "triton/__init__.py",
        "triton/language/core.py",
        "triton/_C/libtri",
    ]
    assert parse_record(WHOLE + "triton/x.py,sha256=CC")[:2] == ["triton/__init__.py", "triton/language/core.py"]


def test_nul_bytes_are_never_a_path() -> None:
    assert parse_record(WHOLE + "\0\0\0\0,\0\0\n") == ["triton/__init__.py", "triton/language/core.py"]


def test_a_damaged_record_of_an_installed_distribution_reads(tmp_path: Path) -> None:
    meta = tmp_path / "triton-3.8.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: triton\nVersion: 3.8.0\n")
    (meta / "RECORD").write_bytes((WHOLE + 'triton/a\0b.py,sha256=DD,1\n"triton/cut').encode())
    dist = read_dist(meta)
    assert dist.files is not None and "triton/__init__.py" in dist.files
    assert all("\0" not in f for f in dist.files)
    hashes = record_hashes(dist)
    assert hashes[tmp_path / "triton" / "__init__.py"] == "sha256=AAAA"
    assert all("\0" not in str(p) for p in hashes)


def test_a_direct_url_nested_too_deeply_is_no_direct_url(tmp_path: Path) -> None:
    """direct_url.json is outside input: a document too deep for the parser is ignored, never a crash."""

    meta = tmp_path / "triton-3.0.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: triton\nVersion: 3.0.0\n")
    (meta / "RECORD").write_text("triton/__init__.py,,\n")
    (meta / "direct_url.json").write_text("[" * 100_000 + "]" * 100_000)
    dist = read_dist(meta)
    assert dist.name == "triton" and dist.direct_url is None
