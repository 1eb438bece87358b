"""purge's leftovers are proven Triton's by their content, never by their name."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.purge import journal, leftovers, scan


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
    lambda s: not s.startswith("/") and ".." not in s
)


@settings(database=None, deadline=None, max_examples=150, suppress_health_check=list(HealthCheck))
@given(
    st.lists(names, min_size=1, max_size=6),
    st.sampled_from(["triton-9.dist-info", "tritonclient-1.dist-info", "~riton-1.dist-info", "x-1.dist-info"]),
)
def test_a_record_listing_anything_but_triton_never_proves_a_leftover(entries: list[str], folder: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        sp = site(Path(tmp))
        meta = sp / folder
        meta.mkdir()
        (meta / "RECORD").write_text("".join(f"{e},,\n" for e in entries))
        found = proven_paths(sp)
        outside = [
            e
            for e in entries
            if not (e == "triton" or e.startswith("triton/"))
            and not e.startswith(f"{folder}/")
            and "__pycache__/" not in e
        ]
        if outside:
            assert found == [], (entries, found)


def test_record_of_a_triton_distribution(tmp_path: Path) -> None:
    sp = site(tmp_path)
    meta = sp / "pytorch_triton-3.5.0.dist-info"
    meta.mkdir()
    (meta / "RECORD").write_text(
        "triton/__init__.py,,\ntriton/__pycache__/__init__.cpython-312.pyc,,\n"
        "../../../bin/proton,,\npytorch_triton-3.5.0.dist-info/RECORD,,\n"
    )
    dist = scan.read_site_packages((sp,))[0]
    assert leftovers.record_is_tritons(dist)
    (meta / "RECORD").write_text("triton/__init__.py,,\n../../../lib/libc.so,,\n")
    assert not leftovers.record_is_tritons(scan.read_site_packages((sp,))[0])


def _stash_left_by_a_killed_uninstall(sp: Path) -> Path:
    """pytorch-triton's uninstall killed between deleting its stashed RECORD and its `~riton` stash:
    `triton` (whose RECORD lacks only_pytorch.py) is still installed."""
    info = sp / "triton-3.5.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: triton\nVersion: 3.5.0\n")
    (info / "RECORD").write_text(
        "triton/__init__.py,,\ntriton-3.5.0.dist-info/METADATA,,\ntriton-3.5.0.dist-info/RECORD,,\n"
    )
    stash = sp / "~riton"
    stash.mkdir()
    (stash / "__init__.py").write_text("")
    (stash / "only_pytorch.py").write_text("B = 1\n")
    return stash


def test_a_stash_whose_record_pip_deleted_is_proven_by_the_journals_copy(tmp_path: Path) -> None:
    sp = site(tmp_path)
    stash = _stash_left_by_a_killed_uninstall(sp)
    dists = scan.read_site_packages((sp,))
    owners = scan.owners_in(dists, (sp,))
    proven, kept = scan.find_leftovers((sp,), owners, dists)
    assert proven == [] and [k.path for k in kept] == [stash]  # no RECORD left lists only_pytorch.py
    saved = frozenset({"triton/__init__.py", "triton/only_pytorch.py"})  # pytorch-triton's, from the journal
    proven, kept = scan.find_leftovers((sp,), owners, dists, recorded_files=saved)
    assert [p.path for p in proven] == [stash] and kept == []
    # A file no saved RECORD lists still keeps the stash.
    (stash / "mine.py").write_text("")
    proven, kept = scan.find_leftovers((sp,), owners, dists, recorded_files=saved)
    assert proven == [] and [k.path for k in kept] == [stash]


def test_the_journals_saved_files_count_only_for_the_same_environment(tmp_path: Path) -> None:
    sp, other = tmp_path / "sp", tmp_path / "other"
    journal_file = tmp_path / "purge-journal.json"
    runs = [
        {
            "target": {"site_packages": [str(sp)]},
            "removed": [
                {"package_files": ["triton/a.py", "elsewhere/b.py", 3, None]},  # only triton/ strings count
                "not an entry",
                {"package_files": "triton/not-a-list.py"},
            ],
        },
        {"target": {"site_packages": [str(other)]}, "removed": [{"package_files": ["triton/other.py"]}]},
        {"target": "crafted", "removed": [{"package_files": ["triton/c.py"]}]},
        "not a run",
    ]
    journal_file.write_text(json.dumps({"format": 1, "runs": runs}))
    assert journal.recorded_package_files(journal_file, [sp]) == {"triton/a.py"}
    assert journal.recorded_package_files(tmp_path / "none.json", [sp]) == frozenset()
    journal_file.write_text("[1, 2]")  # not a journal: nothing, and no error before purge says so
    assert journal.recorded_package_files(journal_file, [sp]) == frozenset()
