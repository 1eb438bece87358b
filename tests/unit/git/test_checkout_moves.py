"""Which ignored files a checkout move would replace: the ones setup refuses to touch (exit 6)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.git.moves import overwritten_by_checkout

SETTINGS = settings(database=None, deadline=None, max_examples=200, suppress_health_check=list(HealthCheck))


def test_same_path_under_a_file_and_where_a_folder_comes() -> None:
    tracked = ["setup.py", "python/triton/__init__.py", "docs/notes.md", "tools"]
    ignored = ["docs/notes.md", "python/triton", "tools/mine.txt", "build/cmake/x.o", "my.local.cfg"]
    assert overwritten_by_checkout(ignored, tracked) == ["docs/notes.md", "python/triton", "tools/mine.txt"]


paths = st.lists(st.sampled_from(["a", "b", "c", "d.txt"]), min_size=1, max_size=3).map("/".join)


@SETTINGS
@given(st.lists(paths, max_size=6), st.lists(paths, max_size=6))
def test_a_file_is_flagged_exactly_when_the_tree_needs_its_place(ignored: list[str], tracked: list[str]) -> None:
    flagged = set(overwritten_by_checkout(ignored, tracked))
    for path in ignored:
        clash = any(path == t or t.startswith(path + "/") or path.startswith(t + "/") for t in tracked)
        assert (path in flagged) == clash, (path, tracked)
