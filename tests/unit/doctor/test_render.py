"""The doctor's report as people and programs read it (bootstrap.doctor.render): a line per check under
its group's worst mark, the fix inline for warnings and errors, the closing verdict, the JSON summary."""

from __future__ import annotations

from pathlib import Path

from bootstrap.doctor.engine import Report
from bootstrap.doctor.model import CheckResult, Fix, Status
from bootstrap.doctor.render import list_checks_json, render_text, report_json, summary_line


def _report() -> Report:
    return Report(
        [
            CheckResult("python.interpreter", "python", Status.OK, "/venv/bin/python (Python 3.12)", (), None, 12),
            CheckResult(
                "python.venv", "python", Status.WARN, "not a venv", ("sys.prefix /usr",), Fix("python3 -m venv ~/v"), 3
            ),
            CheckResult("gpu.driver", "gpu", Status.SKIPPED, "no NVIDIA driver here", (), Fix("pass --arch sm_XY"), 0),
        ],
        seconds=0.42,
    )


def test_text_groups_marks_fixes_and_the_verdict() -> None:
    lines = render_text(_report(), verbose=False, strict=False, header="tritondev doctor: /venv/bin/python")
    text = "\n".join(lines)
    assert lines[0] == "[bold]tritondev doctor: /venv/bin/python[/bold]"
    assert "[yellow]![/yellow] [bold]" in text  # the python group shows its worst: a warning
    assert "[bold]fix:[/bold] python3 -m venv ~/v" in text
    assert "to enable" not in text and "sys.prefix" not in text  # only with -v
    verbose = "\n".join(render_text(_report(), verbose=True, strict=False, header="h"))
    assert "to enable: pass --arch sm_XY" in verbose and "sys.prefix /usr" in verbose and "(12 ms)" in verbose
    assert lines[-1].startswith("[bold]No errors.[/bold] [green]1 ok[/green], [yellow]1 warning[/yellow]")


def test_strict_counts_the_warning_as_a_problem() -> None:
    assert "Doctor found 1 problem(s) in 1 group(s)" in summary_line(_report(), strict=True)
    document = report_json(
        _report(), strict=True, workspace=Path("/ws"), target_reason="given", arch=None, dry_run=False
    )
    assert document["summary"]["exit_code"] != 0 and document["summary"]["warn"] == 1
    assert document["workspace"] == "/ws" and document["checks"][0]["name"] == "python.interpreter"
    lenient = report_json(_report(), strict=False, workspace=Path("/ws"), target_reason="given", arch=90, dry_run=True)
    assert lenient["summary"]["exit_code"] == 0 and lenient["arch"] == 90 and lenient["dry_run"] is True


def test_the_list_of_checks() -> None:
    assert list_checks_json([]) == {"checks": []}
