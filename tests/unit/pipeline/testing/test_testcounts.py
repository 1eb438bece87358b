"""Counts from the runners' own reports: pytest's JUnit XML, lit's xUnit XML (the shapes they really
write: pytest 8, lit 23), ctest's per-test lines; zero tests is zero, no report is unknown (None), and
any file or output is read without a crash (outside input)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bootstrap.pipeline.testing.counts import Counts, ctest_counts, junit_counts

CTEST = """\
Test project /src/triton/build/cmake.linux-x86_64-cpython-3.12
    Start 1: TritonUnitTests
1/4 Test #1: TritonUnitTests ..................   Passed    0.00 sec
2/4 Test #2: TritonGPUDeviceTests .............***Skipped   0.00 sec
3/4 Test #3: TritonAnalysisTests ..............***Failed    0.01 sec
4/4 Test #4: Crashy ...........................***Exception: SegFault  0.01 sec

50% tests passed, 2 tests failed out of 4
""".splitlines()
# pytest -p no:terminal --junitxml (a pass, a failure, a skip, an xfail): no terminal summary at all.
PYTEST = """<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">
<testsuite name="pytest" errors="0" failures="1" skipped="2" tests="4">
<testcase classname="test_x" name="test_a" time="0.000" />
<testcase classname="test_x" name="test_b" time="0.000"><failure message="assert 0">E   assert 0</failure></testcase>
<testcase classname="test_x" name="test_c" time="0.000"><skipped type="pytest.skip" message="skip"></skipped></testcase>
<testcase classname="test_x" name="test_d" time="0.000"><skipped type="pytest.xfail" message="" /></testcase>
</testsuite></testsuites>"""
# lit --filter a --xunit-xml-output: what the filter left out is listed as "not selected".
LIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites time="0.05"><testsuite name="T" tests="4" failures="1" skipped="3" time="0.02">
<testcase classname="T.T" name="a.txt" time="0.02"/>
<testcase classname="T.T" name="b.txt" time="0.04"><failure><![CDATA[Exit Code: 1]]></failure></testcase>
<testcase classname="T.T" name="c.txt" time="0.00"><skipped message="Missing required feature(s): nope"/></testcase>
<testcase classname="T.T" name="d.txt" time="0.00"><skipped message="Test not selected (--filter, --max-tests)"/>
</testcase></testsuite></testsuites>"""
EMPTY = """<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0"
failures="0" skipped="0" tests="0" time="0.032" /></testsuites>"""


def report(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_pytest_junit_counts_passed_failed_skipped_and_xfailed(tmp_path: Path) -> None:
    assert junit_counts([report(tmp_path, "p.xml", PYTEST)]) == Counts(1, 1, 1, 0, {"xfailed": 1})


def test_lit_xunit_counts_and_what_a_filter_left_out(tmp_path: Path) -> None:
    counts = junit_counts([report(tmp_path, "l.xml", LIT)])
    assert counts == Counts(1, 1, 1, 0, {"excluded": 1}) and counts.ran == 3


def test_reports_add_up_and_zero_tests_is_zero_not_unknown(tmp_path: Path) -> None:
    both = junit_counts([report(tmp_path, "p.xml", PYTEST), report(tmp_path, "l.xml", LIT)])
    assert both is not None and (both.passed, both.failed, both.skipped) == (2, 2, 2)
    empty = junit_counts([report(tmp_path, "e.xml", EMPTY)])
    assert empty == Counts() and empty.ran == 0
    assert junit_counts([tmp_path / "missing.xml"]) is None
    assert junit_counts([report(tmp_path, "bad.xml", "2 passed in 0.1s")]) is None
    assert junit_counts([]) is None


def test_ctest_lines_give_passed_failed_and_skipped() -> None:
    assert ctest_counts(CTEST) == Counts(1, 2, 1)
    assert ctest_counts(["100% tests passed"]) is None  # ctest never started
    # `ctest -R nomatch` exits 0 having run nothing: zero tests, which the verdict makes a failure.
    none = ctest_counts(["Test project /b", "No tests were found!!!"])
    assert none == Counts() and none.ran == 0


def test_counts_add_up() -> None:
    assert Counts(1, 2, 3, 0, {"deselected": 1}) + Counts(1, 0, 0, 1, {"deselected": 2}) == Counts(
        2, 2, 3, 1, {"deselected": 3}
    )
    assert Counts(2, 0, 1).describe() == "2 passed, 0 failed, 1 skipped"


@settings(max_examples=50)
@given(st.binary(max_size=300))
def test_any_report_file_is_counted_or_not_never_a_crash(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.xml"
        path.write_bytes(data)
        counts = junit_counts([path])
    assert counts is None or min(counts.passed, counts.failed, counts.skipped, counts.errors) >= 0


@given(st.lists(st.text(max_size=80), max_size=20))
def test_any_output_is_counted_or_not_never_a_crash(lines: list[str]) -> None:
    counts = ctest_counts(lines)
    assert counts is None or min(counts.passed, counts.failed, counts.skipped, counts.errors) >= 0
