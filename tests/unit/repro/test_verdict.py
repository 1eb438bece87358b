"""What a repro answered: its own document when it printed one that agrees with its exit status, else the status."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.repro.verdict import parse_verdict


def _doc(reproduces: bool | None, summary: str) -> str:
    return "noise printed by the kernel\n" + json.dumps(
        {"reproduces": reproduces, "summary": summary, "findings": [{"kind": "mismatch"}], "path": "compiled"}
    )


def test_the_repros_own_document_is_read() -> None:
    verdict = parse_verdict(1, _doc(True, "reproduces: yes (mismatch in out_ptr0: 37 of 512 elements)"), "")
    assert verdict.reproduces is True and verdict.summary.startswith("reproduces: yes (mismatch")
    assert verdict.facts == {"path": "compiled"} and verdict.findings == [{"kind": "mismatch"}]
    assert parse_verdict(0, _doc(False, "reproduces: no (ok)"), "").reproduces is False


def test_a_document_that_disagrees_with_the_exit_status_is_not_believed() -> None:
    verdict = parse_verdict(0, _doc(True, "reproduces: yes"), "")
    assert verdict.reproduces is False and verdict.summary == "reproduces: no (exit 0)"


def test_without_a_document_the_exit_status_decides_as_git_bisect_run_does() -> None:
    assert parse_verdict(-11, "", "").summary == "reproduces: yes (the process died of SIGSEGV)"
    assert parse_verdict(134, "", "").summary == "reproduces: yes (the process died of SIGABRT)"
    cannot = parse_verdict(125, "", "Traceback ...\nImportError: no triton")
    assert cannot.reproduces is None and cannot.summary == "cannot run here: ImportError: no triton"
    assert parse_verdict(1, "", "boom").summary == "reproduces: yes (exit 1: boom)"


@given(st.integers(min_value=-64, max_value=300), st.text(max_size=300), st.text(max_size=300))
def test_any_output_gives_a_verdict(returncode: int, stdout: str, stderr: str) -> None:
    verdict = parse_verdict(returncode, stdout, stderr)
    assert verdict.reproduces in (True, False, None) and verdict.summary
    assert (verdict.reproduces is None) == (returncode == 125)
