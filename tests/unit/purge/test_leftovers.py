"""purge's leftovers are proven Triton's by their content, never by their name."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.purge import leftovers, scan


def site(tmp_path: Path) -> Path:
    sp = tmp_path / "venv" / "lib" / "python3.12" / "site-packages"
    sp.mkdir(parents=True)
    return sp


def proven_paths(sp: Path) -> list[Path]:
    dists = scan.read_site_packages((sp,))
    proven, _kept = scan.find_leftovers((sp,), scan.owners_in(dists, (sp,)), dists)
    return [p.path for p in proven]


def test_a_broken_tritonclient_metadata_folder_is_kept_with_no_triton_installed(tmp_path: Path) -> None:
    sp = site(tmp_path)
    broken = sp / "tritonclient-2.41.0.dist-info"  # RECORD and INSTALLER, no METADATA
    broken.mkdir()
    (broken / "RECORD").write_text("tritonclient/__init__.py,,\ntritonclient-2.41.0.dist-info/RECORD,,\n")
    (broken / "INSTALLER").write_text("pip\n")
    (sp / "tritonclient").mkdir()
    (sp / "tritonclient" / "__init__.py").write_text("")
    assert proven_paths(sp) == []
    dists = scan.read_site_packages((sp,))
    _proven, kept = scan.find_leftovers((sp,), [], dists)
    assert [k.path for k in kept] == [broken]


def test_a_metadata_folder_with_a_link_or_a_fifo_is_not_proven(tmp_path: Path) -> None:
    sp = site(tmp_path)
    for name, odd in (("triton-3.1.0.dist-info", "link"), ("triton-3.2.0.dist-info", "fifo")):
        folder = sp / name
        folder.mkdir()
        (folder / "RECORD").write_text("triton/a.py,,\n")
        if odd == "link":
            (folder / "LICENSE").symlink_to(tmp_path)
        else:
            os.mkfifo(folder / "LICENSE")
    assert proven_paths(sp) == []


def test_pip_stashes_only_with_their_content(tmp_path: Path) -> None:
    sp = site(tmp_path)
    stash = sp / "~riton-3.5.0.dist-info"
    stash.mkdir()
    (stash / "INSTALLER").write_text("pip\n")  # what an interrupted cleanup leaves: bookkeeping only
    other = sp / "~ritonclient-2.0.dist-info"
    other.mkdir()
    (other / "RECORD").write_text("tritonclient/x.py,,\n")
    package = sp / "~riton"
    package.mkdir()
    (package / "mine.py").write_text("no RECORD lists me")
    assert proven_paths(sp) == [stash]


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_/.", min_size=1, max_size=20).filter(
    lambda s: not s.startswith("/") and ".." not in s)


@settings(database=None, deadline=None, max_examples=150, suppress_health_check=list(HealthCheck))
@given(st.lists(names, min_size=1, max_size=6), st.sampled_from(["triton-9.dist-info", "tritonclient-1.dist-info",
                                                                  "~riton-1.dist-info", "x-1.dist-info"]))
def test_a_record_listing_anything_but_triton_never_proves_a_leftover(
        entries: list[str], folder: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        sp = site(Path(tmp))
        meta = sp / folder
        meta.mkdir()
        (meta / "RECORD").write_text("".join(f"{e},,\n" for e in entries))
        found = proven_paths(sp)
        outside = [e for e in entries if not (e == "triton" or e.startswith("triton/"))
                   and not e.startswith(f"{folder}/") and "__pycache__/" not in e]
        if outside:
            assert found == [], (entries, found)


def test_record_of_a_triton_distribution(tmp_path: Path) -> None:
    sp = site(tmp_path)
    meta = sp / "pytorch_triton-3.5.0.dist-info"
    meta.mkdir()
    (meta / "RECORD").write_text("triton/__init__.py,,\ntriton/__pycache__/__init__.cpython-312.pyc,,\n"
                                 "../../../bin/proton,,\npytorch_triton-3.5.0.dist-info/RECORD,,\n")
    dist = scan.read_site_packages((sp,))[0]
    assert leftovers.record_is_tritons(dist)
    (meta / "RECORD").write_text("triton/__init__.py,,\n../../../lib/libc.so,,\n")
    assert not leftovers.record_is_tritons(scan.read_site_packages((sp,))[0])
