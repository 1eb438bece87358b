"""RECORD entries resolved as text (metadata.resolved_entry_text, package_files): the same answers as
pathlib gives, for any entry a RECORD may hold (a RECORD is outside input)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bootstrap.purge import metadata
from bootstrap.purge.metadata import InstalledDist

SITE = Path("/env/lib/python3.12/site-packages")

_part = st.sampled_from(["triton", "tritonx", "triton.py", "..", ".", "", "bin", "_C", "a b", "é", "x.pyc", "~riton"])
entries = st.one_of(
    st.lists(_part, min_size=1, max_size=5).map("/".join),
    st.lists(_part, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts)),
    st.text(alphabet="tr/.ion_C", max_size=24),
)


def _pathlib_resolve(entry: str, base: Path) -> Path:
    """The resolution as pathlib writes it, the reference."""
    path = Path(entry)
    return Path(os.path.normpath(path if path.is_absolute() else base / path))


def _pathlib_package_files(files: list[str], base: Path, site_packages: tuple[Path, ...]) -> tuple[str, ...]:
    roots = [Path(os.path.normpath(sp)) / "triton" for sp in site_packages]
    found: dict[str, None] = {}
    for entry in files:
        path = _pathlib_resolve(entry, base)
        for root in roots:
            if path == root or root in path.parents:
                found[(Path("triton") / path.relative_to(root)).as_posix()] = None
                break
    return tuple(found)


@settings(max_examples=400)
@given(entry=entries)
def test_resolving_as_text_is_what_pathlib_resolves(entry: str) -> None:
    assert metadata.resolve_entry(entry, SITE) == _pathlib_resolve(entry, SITE)
    assert metadata.resolved_entry_text(entry, str(SITE)) == str(_pathlib_resolve(entry, SITE))


@settings(max_examples=300)
@given(files=st.lists(entries, max_size=12), second=st.booleans(), odd_site=st.booleans())
def test_package_files_match_pathlib(files: list[str], second: bool, odd_site: bool) -> None:
    site = Path("/env/lib/python3.12/../python3.12/site-packages") if odd_site else SITE
    sites = (site, Path("/env/lib64/python3.12/site-packages")) if second else (site,)
    dist = InstalledDist("x", "1", site / "x-1.dist-info", True, tuple(files), "pip", None, ())
    assert metadata.package_files(dist, sites) == _pathlib_package_files(files, site, sites)


def test_the_package_folder_itself_and_a_sibling_named_like_it() -> None:
    files = ("triton", "triton/__init__.py", "tritonx/a.py", "triton.py", "../../../bin/triton-x", "triton/../a.py")
    dist = InstalledDist("x", "1", SITE / "x-1.dist-info", True, files, "pip", None, ())
    assert metadata.package_files(dist, (SITE,)) == ("triton", "triton/__init__.py")


@settings(max_examples=300)
@given(files=st.lists(entries, max_size=12), names=st.sets(_part, max_size=4))
def test_claims_of_some_names_are_the_claims_of_all_for_those_names(files: list[str], names: set[str]) -> None:
    from bootstrap.purge import ownership

    dist = InstalledDist("x", "1", SITE / "x-1.dist-info", True, tuple(files), "pip", None, ())
    every = ownership.claims([dist])
    some = ownership.claims([dist], names)
    assert {k: v for k, v in every.items() if os.path.basename(k) in names} == {
        k: v for k, v in some.items() if os.path.basename(k) in names
    }


@settings(max_examples=200)
@given(files=st.lists(entries, max_size=12))
def test_a_base_folder_inside_triton_needs_no_word_in_the_entries(files: list[str]) -> None:
    """Entries without the word "triton" are skipped only where the base folder is outside triton/: an
    egg-info's entries are relative to the egg-info itself, wherever that sits."""
    meta = SITE / "triton" / "sub" / "x-1.egg-info"
    dist = InstalledDist("x", "1", meta, True, tuple(files), "pip", None, ())
    base = meta.parent  # meta is not a folder on disk, so the base is its parent: also inside triton/
    assert metadata.package_files(dist, (SITE,)) == _pathlib_package_files(files, base, (SITE,))


def test_a_pth_recorded_under_another_spelling_is_still_recorded(tmp_path: Path) -> None:
    """find_shadows skips the folders of .pth files a distribution installed, however the RECORD spells them."""
    from bootstrap.purge import scan

    sp = tmp_path / "site-packages"
    shadow = tmp_path / "elsewhere"
    (shadow / "triton").mkdir(parents=True)
    sp.mkdir()
    (sp / "hook.pth").write_text(f"{shadow}\n")
    recorded = InstalledDist("hook", "1", sp / "hook-1.dist-info", True, ("sub/../hook.pth/.",), "pip", None, ())
    assert scan.find_shadows(tmp_path / "cwd", {}, (sp,), [recorded]) == []
    assert scan.find_shadows(tmp_path / "cwd", {}, (sp,), []) == [shadow / "triton"]
