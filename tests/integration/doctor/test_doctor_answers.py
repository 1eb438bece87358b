"""A target whose probes answer JSON of the wrong shape: each affected check fails with a clear line
naming the field, the report is whole, and doctor exits 1 (checks failed), never 70 (a crash)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of, odd_interpreter


def test_malformed_answers_fail_their_checks(cli: Cli, bare_venv: Path, tmp_path: Path) -> None:
    python = odd_interpreter(
        tmp_path / "odd" / "bin",
        bare_venv,
        {
            "tritondev_environment.py": json.dumps({"distributions": [{"name": "triton", "version": 3}]}),
            "tritondev_triton.py": json.dumps({"file": 7}),
        },
    )
    result = cli(
        "doctor",
        "--python",
        str(python),
        "--workspace",
        str(tmp_path / "ws"),
        "--json",
        "--check",
        "packages",
        "--check",
        "python.interpreter",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    checks = checks_of(result.stdout)
    assert checks["python.interpreter"]["status"] == "ok"  # the interpreter itself answers as agreed
    owners = checks["packages.triton-owners"]
    assert owners["status"] == "error"
    assert "probe failed" in owners["summary"] and "'version' is int, not str" in owners["summary"]
    imported = checks["packages.triton-import"]
    assert imported["status"] == "error" and "'file' is int, not str" in imported["summary"]
    assert not any("crashed" in c["summary"] for c in checks.values())


def test_a_probe_without_an_answer_fails_its_check(cli: Cli, bare_venv: Path, tmp_path: Path) -> None:
    python = odd_interpreter(tmp_path / "odd" / "bin", bare_venv, {"tritondev_environment.py": "[1, 2]"})
    result = cli(
        "doctor",
        "--python",
        str(python),
        "--workspace",
        str(tmp_path / "ws"),
        "--json",
        "--check",
        "packages.triton-owners",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    summary = checks_of(result.stdout)["packages.triton-owners"]["summary"]
    assert "tritondev_environment.py exited with status 0 without an answer (not a JSON object" in summary
