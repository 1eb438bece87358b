"""Passed, failed and skipped, read from each test runner's own closing summary. Pure parsers of
outside output: anything that is not a summary is no count (None), never an error.

- pytest: its last summary line, `== 2 passed, 1 skipped, 1 deselected in 0.12s ==` (or without the
  rules under -q), the same with pytest-xdist.
- ctest (check-triton-unit-tests): one line per test, `1/3 Test #1: Name .....   Passed    0.01 sec`,
  `***Failed`, `***Skipped` (its SKIP_RETURN_CODE), `***Not Run`, `Not Run (Disabled)`, `***Exception`,
  `***Timeout`.
- lit (check-triton-lit-tests): its `Passed: N` ... lines (`parse_summary` below, which `bootstrap.ir.lit` uses too).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_PYTEST_WORD = re.compile(r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun)\b")
_PYTEST_LINE = re.compile(r"^=*\s*((?:\d+ \w+(?:, )?)+)(?: in [\d.]+s)?\b")
_CTEST_TEST = re.compile(r"^\s*\d+/\d+\s+Test\s+#\d+:\s+\S+\s+\.*\s*(\*{0,3})(Passed|Failed|Skipped|Not Run|"
                         r"Exception|Timeout|\w+)")
_LIT_FAILED = ("Failed", "Unexpectedly Passed", "Timed Out")
_LIT_SKIPPED = ("Unsupported", "Skipped", "Excluded")


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
        return Counts(self.passed + more.passed, self.failed + more.failed, self.skipped + more.skipped,
                      self.errors + more.errors, other)

    def describe(self) -> str:
        words = [f"{self.passed} passed", f"{self.failed} failed", f"{self.skipped} skipped"]
        if self.errors:
            words.append(f"{self.errors} errors")
        words += [f"{n} {k}" for k, n in sorted(self.other.items())]
        return ", ".join(words)

    def to_json(self) -> dict[str, object]:
        return {"passed": self.passed, "failed": self.failed, "skipped": self.skipped, "errors": self.errors,
                **dict(sorted(self.other.items()))}


def pytest_counts(lines: Sequence[str]) -> Counts | None:
    """The counts of pytest's last summary line."""
    for line in reversed(lines):
        text = line.strip()
        match = _PYTEST_LINE.match(text)
        if match is None or not (text.startswith("=") or " in " in text):
            continue
        found = {kind: int(n) for n, kind in _PYTEST_WORD.findall(match.group(1))}
        if not found:
            continue
        other = {k: v for k, v in found.items() if k in ("deselected", "xfailed", "xpassed", "rerun")}
        return Counts(found.get("passed", 0), found.get("failed", 0), found.get("skipped", 0),
                      found.get("error", 0) + found.get("errors", 0), other)
    return None


def ctest_counts(lines: Sequence[str]) -> Counts | None:
    """The counts of ctest's per-test lines."""
    passed = failed = skipped = 0
    seen = False
    for line in lines:
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


def lit_counts(lines: Sequence[str]) -> Counts | None:
    summary = parse_summary(lines)
    if not summary.ran:
        return None
    counts = summary.counts
    other = {k.lower().replace(" ", "_"): v for k, v in counts.items() if k == "Expectedly Failed"}
    return Counts(counts.get("Passed", 0), sum(counts.get(k, 0) for k in _LIT_FAILED),
                  sum(counts.get(k, 0) for k in _LIT_SKIPPED), 0, other)


COUNTERS = {"pytest": pytest_counts, "ctest": ctest_counts, "lit": lit_counts}


_COUNT = re.compile(r"^\s*(Passed|Failed|Unsupported|Expectedly Failed|Unexpectedly Passed|Skipped|Excluded|"
                    r"Timed Out)\s*:\s*(\d+)")


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
