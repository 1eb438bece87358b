"""The benchmark checkouts get upstream's numbers of files and folders (tests/perf/scale/shape.py),
and the filler that gives them that shape never touches what the build compiles."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.perf.scale import shape, sources
from tests.perf.scale.world import llvm_files, triton_files


def test_the_tables_add_up_to_the_counted_upstream_trees() -> None:
    assert sum(a.files for a in shape.LLVM_AREAS) == shape.LLVM_FILES
    top_folders = {a.root.split("/")[0] for a in shape.LLVM_AREAS if a.root}
    nested_roots = {a.root for a in shape.LLVM_AREAS if "/" in a.root}
    assert sum(a.folders for a in shape.LLVM_AREAS) + len(top_folders) + len(nested_roots) == shape.LLVM_FOLDERS
    test_area = next(a for a in shape.LLVM_AREAS if a.root == "llvm/test")
    assert (test_area.files, test_area.folders + 1) == (shape.LLVM_TEST_FILES, shape.LLVM_TEST_FOLDERS)
    assert sum(a.files for a in shape.TRITON_AREAS) == shape.TRITON_FILES


@functools.cache
def generated_llvm() -> tuple[list[str], list[str]]:
    """The files of a small generated LLVM tree, and the filler that gives it upstream's shape."""
    generated = list(llvm_files(sources.plan(600)))
    return generated, list(shape.filler(generated, shape.LLVM_AREAS, "llvm-project"))


def test_the_generated_llvm_tree_plus_filler_has_upstreams_shape_in_every_area() -> None:
    generated, added = generated_llvm()
    everything = generated + added
    assert len(everything) == len(set(everything)) == shape.LLVM_FILES
    assert len(shape.folders_of(everything)) == shape.LLVM_FOLDERS
    assert shape.census(everything, shape.LLVM_AREAS) == {a.root: (a.files, a.folders) for a in shape.LLVM_AREAS}


def test_filler_goes_into_new_folders_only_never_beside_the_builds_sources() -> None:
    files, added = generated_llvm()
    generated = set(files)
    before = shape.folders_of(generated)
    roots = {a.root for a in shape.LLVM_AREAS}
    for path in added:
        parent = path.rpartition("/")[0]
        assert path not in generated
        assert parent not in before or parent in roots, path


def test_the_triton_filler_lives_under_docs_and_gives_tritons_count() -> None:
    generated = list(triton_files(sources.plan(600)))
    added = shape.filler(generated, shape.TRITON_AREAS, "triton")
    assert all(path.startswith("docs/") for path in added)
    everything = generated + list(added)
    assert len(everything) == shape.TRITON_FILES
    assert len(shape.folders_of(everything)) == shape.TRITON_FOLDERS


_segment = st.text(alphabet="abcXYZ019_-.", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_segment, min_size=1, max_size=5).map("/".join), max_size=40))
def test_any_small_tree_is_filled_to_exactly_the_shape_and_nothing_is_overwritten(paths: list[str]) -> None:
    # A tree of files only (a path that is also a folder of another cannot exist in a checkout).
    holding = shape.folders_of(paths)
    existing = sorted({p for p in paths if p not in holding})
    areas = (
        shape.Area("a/b", 30, 7),
        shape.Area("a", 20, 5, place="a/gen"),
        shape.Area("", 15, 9),
        shape.Area("c", 2, 6),
    )  # more folders than files: each new folder still holds one
    added = shape.filler(existing, areas, "t")
    assert not set(added) & set(existing)
    assert not set(added) & shape.folders_of(existing)
    after = shape.census(existing + list(added), areas)
    before = shape.census(existing, areas)
    for area in areas:
        (files_before, folders_before), (files, subfolders) = before[area.root], after[area.root]
        assert subfolders == max(area.folders, folders_before)
        # Files: upstream's count, more only where new folders need one each (git keeps no empty folder).
        assert max(area.files, files_before) <= files <= max(area.files, files_before + subfolders - folders_before)


def test_at_the_default_size_every_area_has_upstreams_folders_and_at_least_its_files() -> None:
    generated = list(llvm_files(sources.plan(sources.DEFAULT_UNITS)))
    everything = generated + list(shape.filler(generated, shape.LLVM_AREAS, "llvm-project"))
    census = shape.census(everything, shape.LLVM_AREAS)
    for area in shape.LLVM_AREAS:
        files, folders = census[area.root]
        assert folders == area.folders and files >= area.files, (area.root, census[area.root])
    assert len(shape.folders_of(everything)) == shape.LLVM_FOLDERS
