"""Passed, failed and skipped, read from each test runner's own report: one reader per runner. Pure
parsers of outside output: anything that is not a report is no count (None), never an error.

- pytest: the JUnit XML it writes where tritondev asks (`--junitxml`, through PYTEST_ADDOPTS), one file
  per pytest process; upstream's test runner (main) writes one per pytest process it starts into
  TRITON_TEST_JUNIT_DIR. Its terminal summary is not read: `-qq` or `-p no:terminal` leave none.
- lit: the xUnit XML it writes with `--xunit-xml-output` (through LIT_OPTS, which lit reads, so the
  check target's lit writes it too): the same schema. A test --filter left out is "excluded".
- ctest (check-triton-unit-tests): its per-test lines, `1/3 Test #1: Name ....   Passed    0.01 sec`,
  `***Failed`, `***Skipped` (its SKIP_RETURN_CODE), `***Not Run`, `Not Run (Disabled)`,
  `***Exception`, `***Timeout`, after its `Test project <folder>` line (`No tests were found!!!`: zero).
  Its Testing/Temporary/LastTest.log is no report of skips: it says "Test Passed." for a skipped test.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

_CTEST_TEST = re.compile(
    r"^\s*\d+/\d+\s+Test\s+#\d+:\s+\S+\s+\.*\s*(\*{0,3})(Passed|Failed|Skipped|Not Run|"
    r"Exception|Timeout|\w+)"
)
_CTEST_STARTED = ("Test project ", "No tests were found")
_EXCLUDED = "Test not selected"  # lit's message for a test its --filter left out
REPORT_LIMIT = 256 << 20


@dataclass(frozen=True)
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    other: Mapping[str, int] = field(default_factory=dict)  # deselected, xfailed, xpassed, ...

    def __add__(self, more: Counts) -> Counts:
        other = dict(self.other)
        for key, value in more.other.items():
            other[key] = other.get(key, 0) + value
        return Counts(
            self.passed + more.passed,
            self.failed + more.failed,
            self.skipped + more.skipped,
            self.errors + more.errors,
            other,
        )

    @property
    def ran(self) -> int:
        """How many tests the runner reported on (skipped ones included, those a filter left out not):
        zero is a failure, as pytest's exit 5 and lit's empty filter are."""
        return (
            self.passed
            + self.failed
            + self.skipped
            + self.errors
            + sum(v for k, v in self.other.items() if k not in ("excluded", "deselected"))
        )

    def describe(self) -> str:
        words = [f"{self.passed} passed", f"{self.failed} failed", f"{self.skipped} skipped"]
        if self.errors:
            words.append(f"{self.errors} errors")
        words += [f"{n} {k}" for k, n in sorted(self.other.items())]
        return ", ".join(words)

    def to_json(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "errors": self.errors,
            **dict(sorted(self.other.items())),
        }


def junit_counts(reports: Iterable[Path]) -> Counts | None:
    """The counts of JUnit/xUnit XML reports (pytest's, lit's) added up; None when there is none or one
    is not such a report."""
    total: Counts | None = None
    for report in reports:
        try:
            if report.stat().st_size > REPORT_LIMIT:
                return None
            root = ET.parse(report).getroot()
        except (OSError, ET.ParseError, ValueError):
            return None
        counts = _testcases(root.iter("testcase"))
        total = counts if total is None else total + counts
    return total


def _testcases(cases: Iterable[ET.Element]) -> Counts:
    passed = failed = skipped = errors = 0
    other: dict[str, int] = {}
    for case in cases:
        if case.find("failure") is not None:
            failed += 1
        elif case.find("error") is not None:
            errors += 1
        elif (skip := case.find("skipped")) is not None:
            kind = (
                "xfailed"
                if skip.get("type") == "pytest.xfail"
                else "excluded"
                if (skip.get("message") or "").startswith(_EXCLUDED)
                else None
            )
            if kind is None:
                skipped += 1
            else:
                other[kind] = other.get(kind, 0) + 1
        else:
            passed += 1
    return Counts(passed, failed, skipped, errors, other)


def ctest_counts(lines: Sequence[str]) -> Counts | None:
    """The counts of ctest's per-test lines; None when ctest did not start (no `Test project` line)."""
    passed = failed = skipped = 0
    seen = False
    for line in lines:
        seen = seen or line.startswith(_CTEST_STARTED)
        match = _CTEST_TEST.match(line)
        if match is None:
            continue
        seen = True
        word = match.group(2)
        if word == "Passed":
            passed += 1
        elif word == "Skipped" or (word == "Not Run" and "(Disabled)" in line):
            skipped += 1
        else:
            failed += 1
    return Counts(passed, failed, skipped) if seen else None


_COUNT = re.compile(
    r"^\s*(Passed|Failed|Unsupported|Expectedly Failed|Unexpectedly Passed|Skipped|Excluded|"
    r"Timed Out)\s*:\s*(\d+)"
)


_FAILED_TEST = re.compile(r"^\s+(\S.* :: \S.*)$")


@dataclass
class LitSummary:
    counts: dict[str, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    @property
    def ran(self) -> bool:
        return bool(self.counts)

    def to_json(self) -> dict[str, object]:
        return {"counts": self.counts, "failed": self.failed}


def parse_summary(lines: Sequence[str]) -> LitSummary:
    """lit's closing summary: the count per result, and the tests that failed."""
    summary = LitSummary()
    in_failed = False
    for line in lines:
        if line.startswith(("Failed Tests (", "Unexpectedly Passed Tests (", "Timed Out Tests (")):
            in_failed = True
            continue
        if in_failed:
            match = _FAILED_TEST.match(line)
            if match:
                summary.failed.append(match.group(1).strip())
                continue
            in_failed = False
        count = _COUNT.match(line)
        if count:
            summary.counts[count.group(1)] = int(count.group(2))
    return summary
