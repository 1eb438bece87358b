"""Run a selection of checks in parallel, each guarded: a crash in one is that check's error."""

from __future__ import annotations

import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from bootstrap.core.errors import ExitCode, TritondevError
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import AppliedFix, CheckResult, CheckSpec, Fix, Status

MAX_WORKERS = 8


def run_one(spec: CheckSpec, facts: Facts) -> CheckResult:
    started = time.monotonic()
    try:
        outcome = spec.function(facts)
        status, summary, details, fix, figures = (
            outcome.status,
            outcome.summary,
            outcome.details,
            outcome.fix,
            outcome.figures,
        )
    except Skip as exc:
        status, summary, details, fix, figures = Status.SKIPPED, str(exc), (), Fix(exc.fix) if exc.fix else None, None
    except ProbeFailed as exc:
        status, summary, details, fix, figures = Status.ERROR, f"probe failed: {exc}", (), None, None
    except TritondevError as exc:
        status, summary = Status.ERROR, exc.message
        details, fix, figures = (exc.details,) if exc.details else (), Fix(exc.fix) if exc.fix else None, None
    except Exception as exc:  # a bug or a surprise in one check must not stop the others
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        status, summary = Status.ERROR, f"check crashed: {type(exc).__name__}: {exc}"
        details, fix, figures = tuple("".join(lines[-3:]).rstrip().splitlines()), None, None
    elapsed = int((time.monotonic() - started) * 1000)
    return CheckResult(spec.name, spec.group, status, summary, tuple(details), fix, elapsed, figures)


def run_checks(specs: list[CheckSpec], facts: Facts, workers: int = MAX_WORKERS) -> list[CheckResult]:
    """Every check in `specs`, slow ones started first; results in `specs` order."""
    order = sorted(range(len(specs)), key=lambda i: (not specs[i].slow, i))
    results: dict[int, CheckResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(specs)))) as pool:
        futures = {i: pool.submit(run_one, specs[i], facts) for i in order}
        for i, future in futures.items():
            results[i] = future.result()
    return [results[i] for i in range(len(specs))]


@dataclass
class Report:
    results: list[CheckResult]
    seconds: float
    fixes: list[AppliedFix] = field(default_factory=list)
    # The environment the report is about (probed at the end when no selected check needed it); None
    # when there is none, or it is not usable (python.interpreter, when run, says why).
    target: TargetPython | None = None

    def counts(self) -> dict[Status, int]:
        counts = dict.fromkeys(Status, 0)
        for r in self.results:
            counts[r.status] += 1
        return counts

    def open_problems(self, strict: bool) -> list[CheckResult]:
        """Errors (and with strict, warnings) that --fix did not resolve."""
        bad = {Status.ERROR, Status.WARN} if strict else {Status.ERROR}
        return [r for r in self.results if r.status in bad and not r.fixed]

    def exit_code(self, strict: bool) -> ExitCode:
        return ExitCode.CHECK_FAILED if self.open_problems(strict) else ExitCode.OK
