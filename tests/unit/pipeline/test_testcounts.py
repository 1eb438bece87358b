"""Counts from the runners' own summaries (pytest, ctest, lit): the real shapes, and any output read
without a crash (outside input)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.pipeline.testing.counts import Counts, ctest_counts, lit_counts, pytest_counts

CTEST = """\
Test project /src/triton/build/cmake.linux-x86_64-cpython-3.12
    Start 1: TritonUnitTests
1/4 Test #1: TritonUnitTests ..................   Passed    0.00 sec
2/4 Test #2: TritonGPUDeviceTests .............***Skipped   0.00 sec
3/4 Test #3: TritonAnalysisTests ..............***Failed    0.01 sec
4/4 Test #4: Crashy ...........................***Exception: SegFault  0.01 sec

50% tests passed, 2 tests failed out of 4
""".splitlines()


def test_pytest_summary_lines_with_and_without_rules() -> None:
    assert pytest_counts(["x", "==== 2 passed, 1 skipped, 3 deselected in 0.85s ===="]) == Counts(
        2, 0, 1, 0, {"deselected": 3})
    assert pytest_counts(["1 failed, 4 passed, 2 warnings in 1.2s"]) == Counts(4, 1)
    assert pytest_counts(["=== 1 error in 0.1s ==="]) == Counts(errors=1)
    assert pytest_counts(["===== no tests ran in 0.01s ====="]) is None
    assert pytest_counts(["2 passed but this is a log line"]) is None


def test_ctest_lines_give_passed_failed_and_skipped() -> None:
    assert ctest_counts(CTEST) == Counts(1, 2, 1)
    assert ctest_counts(["100% tests passed"]) is None


def test_lit_summary() -> None:
    assert lit_counts(["Total Discovered Tests: 6", "  Passed: 4 (66%)", "  Unsupported: 1", "  Failed: 1"]) == \
        Counts(4, 1, 1)


def test_counts_add_up() -> None:
    assert Counts(1, 2, 3, 0, {"deselected": 1}) + Counts(1, 0, 0, 1, {"deselected": 2}) == Counts(
        2, 2, 3, 1, {"deselected": 3})
    assert Counts(2, 0, 1).describe() == "2 passed, 0 failed, 1 skipped"


@given(st.lists(st.text(max_size=80), max_size=20))
def test_any_output_is_counted_or_not_never_a_crash(lines: list[str]) -> None:
    for parse in (pytest_counts, ctest_counts, lit_counts):
        counts = parse(lines)
        assert counts is None or min(counts.passed, counts.failed, counts.skipped, counts.errors) >= 0
