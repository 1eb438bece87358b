"""Where each test runner writes its report, how it is read, and what a command's end means.

One reader per runner (bootstrap.pipeline.testing.counts): a pytest command writes JUnit XML where
PYTEST_ADDOPTS says (`--junitxml`, unless the user gave one: then that file is read), upstream's test
runner one file per pytest process into TRITON_TEST_JUNIT_DIR, lit (its check target's too) xUnit XML
where LIT_OPTS says, ctest is read from its per-test lines. A command whose runner wrote no report
has unknown counts, never zero.

The verdict of a command, from its exit status and its counts: a test that failed is a test failure
(exit 1), never a build error, with or without counts (pytest's exit 1); no test run at all (pytest's
exit 5, ctest's "No tests were found!!!", a report of zero tests) is a failure too; anything else
non-zero is the build or the runner failing (exit 4), as is upstream's test runner ending without
any pytest report (it stopped before its first pytest, e.g. "requested 1 GPU shards, but 0 CUDA devices
are visible"). Pure, less reading the reports.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from bootstrap.pipeline.testing.counts import Counts, ctest_counts, junit_counts
from bootstrap.pipeline.testing.targets import TestStep

Verdict = Literal["passed", "tests-failed", "no-tests", "failed", "not-run"]
PYTEST_TESTS_FAILED = 1
PYTEST_NO_TESTS = 5


def report_env(step: TestStep, environ: Mapping[str, str], folder: Path) -> tuple[dict[str, str], Path | None]:
    """The variables that make `step`'s runner write its report under `folder`, and where it will be."""
    if step.counter == "pytest":
        own = user_report(step)
        if own is not None or "no:junitxml" in step.argv or "-pno:junitxml" in step.argv:
            return {}, own  # the user's file, or none at all (pytest would refuse --junitxml without its plugin)
        path = folder / "pytest.xml"
        return {"PYTEST_ADDOPTS": _joined(environ.get("PYTEST_ADDOPTS"), f"--junitxml={shlex.quote(str(path))}")}, path
    if step.counter == "junit-dir":
        return {"TRITON_TEST_JUNIT_DIR": str(folder)}, folder
    if step.counter == "lit":
        path = folder / "lit.xml"
        return {"LIT_OPTS": _joined(environ.get("LIT_OPTS"), f"--xunit-xml-output={shlex.quote(str(path))}")}, path
    return {}, None


def _joined(before: str | None, option: str) -> str:
    return f"{before} {option}" if before and before.strip() else option


def user_report(step: TestStep) -> Path | None:
    """The JUnit file the user asked pytest for (`--junitxml FILE`, `--junitxml=FILE`), from the step's folder."""
    found: str | None = None
    words = step.argv
    for index, word in enumerate(words):
        for option in ("--junitxml", "--junit-xml"):
            if word == option and index + 1 < len(words):
                found = words[index + 1]
            elif word.startswith(option + "="):
                found = word.partition("=")[2]
    return step.cwd / found if found else None


def read_counts(step: TestStep, report: Path | None, lines: Sequence[str]) -> Counts | None:
    if step.counter == "ctest":
        return ctest_counts(lines)
    if report is None:
        return None
    if step.counter == "junit-dir":
        files = sorted(report.glob("*.xml")) if report.is_dir() else []
        return junit_counts(files) if files else None
    return junit_counts([report]) if report.is_file() else None


def verdict(step: TestStep, returncode: int, counts: Counts | None) -> Verdict:
    """What the end of one command means (module docstring)."""
    if counts is not None:
        if counts.failed or counts.errors:
            return "tests-failed"
        if not counts.ran:
            return "no-tests"
        return "passed" if returncode == 0 else "failed"
    if step.counter == "pytest":  # pytest's own exit codes (no report: -p no:junitxml)
        meanings: dict[int, Verdict] = {0: "passed", PYTEST_TESTS_FAILED: "tests-failed", PYTEST_NO_TESTS: "no-tests"}
        return meanings.get(returncode, "failed")
    return "passed" if returncode == 0 else "failed"
