"""`tritondev test`'s plan from a checkout's Makefile (bootstrap.pipeline.testing.run): the target's
commands, the user's test paths made absolute, the era without a Makefile, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.pipeline.testing import run as testing
from bootstrap.pipeline.testing.counts import Counts
from bootstrap.pipeline.testing.run import StepOutcome, locate_path, plan_tests, refuse_without_gpu, requirements_fix
from tests.unit.pipeline.testing.test_maketargets import MAKEFILE


def _checkout(tmp_path: Path, makefile: str | None = MAKEFILE) -> tuple[Path, Path, Path]:
    checkout = tmp_path / "triton"
    (checkout / "python" / "test" / "unit" / "language").mkdir(parents=True)
    (checkout / "python" / "test" / "unit" / "language" / "test_core.py").write_text("def test_x(): pass\n")
    if makefile is not None:
        (checkout / "Makefile").write_text(makefile)
    return checkout, checkout / "build" / "cmake.linux-x86_64-cpython-3.12", tmp_path / "venv" / "bin" / "python"


def _request(name: str, *args: str, cwd: Path = Path("/")) -> testing.TestRequest:
    return testing.TestRequest(name, args, False, cwd)


def test_a_makefile_target_is_planned_with_its_prerequisites(tmp_path: Path) -> None:
    checkout, build, python = _checkout(tmp_path)
    plan = plan_tests(_request("interpret"), checkout, build, python, {}, 2, str)
    assert plan.makefile_target == "test-interpret" and plan.needs_requirements is True
    assert [s.kind for s in plan.steps] == ["ninja", "pytest"]
    assert plan.steps[1].cwd == checkout / "python" / "test" / "unit"
    lit = plan_tests(_request("lit"), checkout, build, python, {}, 2, str)
    assert [s.argv for s in lit.steps] == [("ninja", "-C", str(build), "check-triton-lit-tests")]
    assert lit.needs_requirements is False


def test_user_paths_are_found_from_where_the_user_is_then_the_checkout(tmp_path: Path) -> None:
    checkout, build, python = _checkout(tmp_path)
    here = tmp_path / "elsewhere"
    here.mkdir()
    (here / "mine.py").write_text("def test_y(): pass\n")
    assert locate_path("mine.py::test_y", here, checkout) == f"{(here / 'mine.py').resolve()}::test_y"
    inside = "python/test/unit/language/test_core.py"
    assert locate_path(inside, here, checkout) == str((checkout / inside).resolve())
    with pytest.raises(UsageError, match=r"no test file or folder nowhere\.py"):
        locate_path("nowhere.py", here, checkout)
    plan = plan_tests(
        _request("interpret", inside, cwd=here),
        checkout,
        build,
        python,
        {},
        2,
        lambda p: locate_path(p, here, checkout),
    )
    assert str((checkout / inside).resolve()) in plan.steps[-1].argv


def test_an_unknown_target_names_the_ones_there_are(tmp_path: Path) -> None:
    checkout, build, python = _checkout(tmp_path)
    with pytest.raises(UsageError) as info:
        plan_tests(_request("gluon"), checkout, build, python, {}, 2, str)
    assert "has no target test-gluon or gluon" in info.value.message
    assert "cpp, interpret, lit, nogpu, unit" in info.value.message


def test_before_the_makefile_only_the_builds_own_checks_run(tmp_path: Path) -> None:
    checkout, build, python = _checkout(tmp_path, makefile=None)
    plan = plan_tests(_request("nogpu"), checkout, build, python, {}, 2, str)
    assert plan.makefile_target is None
    assert plan.steps[0].argv[-1] == "check-triton-lit-tests"  # then the unit tests, by ctest (no target yet)
    assert [s.argv[0] for s in plan.steps[1:]] == ["ninja", "ctest"]
    with pytest.raises(UsageError, match="has no Makefile at this commit"):
        plan_tests(_request("interpret"), checkout, build, python, {}, 2, str)


def test_gpu_targets_are_refused_without_a_gpu_and_requirements_fix_repeats_the_arguments(tmp_path: Path) -> None:
    checkout, build, python = _checkout(tmp_path)
    unit = plan_tests(_request("unit"), checkout, build, python, {}, 2, str)
    with pytest.raises(UsageError, match="runs on a GPU, and this machine has none"):
        refuse_without_gpu(unit, [])
    refuse_without_gpu(unit, ["cuda:90"])
    fix = requirements_fix(_request("interpret", "-k", "add"))
    assert fix == "tritondev test interpret --install-requirements -k add"
    assert requirements_fix(_request("lit")) == "tritondev test lit --install-requirements"


def test_the_report_sums_counts_and_finds_the_step_that_broke(tmp_path: Path) -> None:
    checkout, build, python = _checkout(tmp_path)
    plan: testing.TestPlan = plan_tests(_request("interpret"), checkout, build, python, {}, 2, str)
    built, tested = plan.steps
    outcomes = (
        StepOutcome(built, 0, None, "passed"),
        StepOutcome(tested, 1, Counts(passed=2, failed=1), "tests-failed"),
    )
    failing = testing.TestReport(plan, outcomes)
    counts = failing.counts
    assert counts is not None and (counts.passed, counts.failed) == (2, 1)
    assert failing.first("failed") is None  # a test failed: not a broken step
    broken = testing.TestReport(plan, (StepOutcome(built, 2, None, "failed"),))
    first = broken.first("failed")
    assert first is not None and first.step == built
    document = failing.to_json()
    assert document["makefile_target"] == "test-interpret" and len(document["steps"]) == 2  # type: ignore[arg-type]
