"""A doctor run: named checks only, their report, and each distinct fix applied once (a failing fix is
reported, never raised); with no check named the target's probes begin before the checks load."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.context import AppContext, make_context
from bootstrap.core.process.runner import Runner
from bootstrap.doctor.fixers import apply_fixes
from bootstrap.doctor.model import CheckResult, Fix, FixStatus, Status
from bootstrap.doctor.options import DoctorOptions, start_facts
from bootstrap.doctor.run import run_doctor


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppContext:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    # An interpreter that is not there: the report's target is None, and no process is started for it.
    return make_context({"workspace": str(tmp_path / "ws"), "python": str(tmp_path / "no-python")}, logs=False)


def test_named_checks_run_alone_and_start_no_probe(ctx: AppContext, tmp_path: Path) -> None:
    asked = DoctorOptions(checks=["settings.triton-env", "resources.cores"], environ={"TRITON_DEBUG": "1"})
    facts = start_facts(ctx, asked)
    assert facts.selected == frozenset() and not facts.runs("ptxas.arch")  # nothing begun before the selection
    report = run_doctor(ctx, asked, facts)
    assert [r.name for r in report.results] == ["resources.cores", "settings.triton-env"]
    assert facts.runs("resources.cores") and not facts.runs("ptxas.arch")
    triton_env = next(r for r in report.results if r.name == "settings.triton-env")
    assert "TRITON_DEBUG" in triton_env.summary and report.target is None and report.fixes == []
    assert not (tmp_path / "ws").exists()


def test_each_distinct_fix_is_applied_once_and_a_failing_one_is_reported(ctx: AppContext) -> None:
    def result(name: str, action: str | None) -> CheckResult:
        return CheckResult(name, "cache", Status.WARN, "stale", (), Fix("clear it", action), 1, None)

    results = [result("cache.stale", "env"), result("cache.size", "env"), result("cache.filesystem", None)]
    # facts=None: the env fixer fails on it, which is the case shown (its failure recorded, not raised).
    done = apply_fixes(None, results, dry_run=True, runner=Runner())  # type: ignore[arg-type]
    assert [(d.action, d.status, d.checks) for d in done] == [("env", FixStatus.FAILED, ("cache.stale", "cache.size"))]
    assert results[0].applied == results[1].applied and results[0].applied is not None
    assert results[0].applied.status is FixStatus.FAILED and results[2].applied is None


def test_the_facts_remove_their_folders_however_the_run_ends(ctx: AppContext) -> None:
    """The command holds the facts in a `with`: a Ctrl-C while the checks' modules import (after the
    probes began) still removes the probes' temporary folders; closing twice is closing once."""
    from bootstrap.doctor.facts import Facts

    with pytest.raises(KeyboardInterrupt), Facts(ctx) as facts:
        folder = facts.tempdir("cache")
        assert folder.is_dir()
        raise KeyboardInterrupt
    assert not folder.exists()
    facts.close()
    assert not folder.exists()
