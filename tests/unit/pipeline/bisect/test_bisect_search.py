"""The bisect search over a commit list and verdicts: every placement of the regression and of the
commits that do not build."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootstrap.pipeline.bisect.search import Verdict, search, steps_estimate

COMMITS = [f"c{i:02d}" for i in range(16)]


def run_to_the_end(commits: list[str], first_bad: int, unbuildable: set[int]) -> tuple[list[str], tuple[str, ...]]:
    """Test what the search asks for, as a real bisect would; (tested commits, final candidates)."""
    verdicts: dict[str, Verdict] = {}
    tested: list[str] = []
    state = search(commits, verdicts)
    while not state.done:
        assert state.next is not None and state.next not in verdicts
        index = commits.index(state.next)
        tested.append(state.next)
        if index in unbuildable:
            verdicts[state.next] = Verdict.SKIP
        else:
            verdicts[state.next] = Verdict.BAD if index >= first_bad else Verdict.GOOD
        state = search(commits, verdicts)
        assert len(tested) <= len(commits)
    return tested, state.candidates


def test_sixteen_commits_take_four_tests() -> None:
    for first_bad in range(len(COMMITS)):
        tested, candidates = run_to_the_end(COMMITS, first_bad, set())
        assert candidates == (COMMITS[first_bad],)
        assert len(tested) <= 4


def test_the_first_test_is_the_middle_and_the_bad_end_is_never_tested() -> None:
    state = search(COMMITS, {})
    assert state.next == "c07" and state.steps_left == 4 and state.candidates == tuple(COMMITS)
    tested, _ = run_to_the_end(COMMITS, 15, set())
    assert "c15" not in tested


def test_a_skipped_middle_moves_to_its_neighbour() -> None:
    state = search(COMMITS, {"c07": Verdict.SKIP})
    assert state.next == "c06"
    tested, candidates = run_to_the_end(COMMITS, 10, {7})
    assert candidates == ("c10",)
    assert tested[:2] == ["c07", "c06"]


def test_only_skipped_commits_left_names_them_all() -> None:
    verdicts = {"c05": Verdict.GOOD, "c06": Verdict.SKIP, "c07": Verdict.SKIP, "c08": Verdict.BAD}
    state = search(COMMITS, verdicts)
    assert state.done and state.first_bad is None
    assert state.candidates == ("c06", "c07", "c08")


def test_one_commit_range_needs_no_test() -> None:
    state = search(["only"], {})
    assert state.done and state.first_bad == "only" and state.steps_left == 0


def test_a_good_verdict_after_a_bad_one_is_ignored() -> None:
    state = search(COMMITS, {"c04": Verdict.BAD, "c09": Verdict.GOOD})
    assert state.candidates == tuple(COMMITS[:5])


def test_empty_range_is_refused() -> None:
    with pytest.raises(ValueError):
        search([], {})


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_regression_is_always_among_the_candidates(data: st.DataObject) -> None:
    size = data.draw(st.integers(min_value=1, max_value=200))
    commits = [f"c{i}" for i in range(size)]
    first_bad = data.draw(st.integers(min_value=0, max_value=size - 1))
    unbuildable = (
        set() if size == 1 else data.draw(st.sets(st.integers(min_value=0, max_value=size - 2), max_size=size // 3))
    )
    tested, candidates = run_to_the_end(commits, first_bad, unbuildable)
    assert commits[first_bad] in candidates
    if first_bad not in unbuildable:
        if len(candidates) > 1:  # ambiguous only because skipped commits sit just before it
            assert all(commits.index(c) in unbuildable for c in candidates[:-1])
    if not unbuildable:
        assert candidates == (commits[first_bad],)
        assert len(tested) <= math.ceil(math.log2(size)) + 1


def test_steps_estimate() -> None:
    assert [steps_estimate(n) for n in (0, 1, 2, 3, 7, 8, 15)] == [0, 1, 2, 2, 3, 4, 4]
