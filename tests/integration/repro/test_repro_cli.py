"""`tritondev repro` at its edges: bad input changes nothing, the hook leaves the user's own sitecustomize working,
a repro folder is only written where tritondev may write, and every --json is one document."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.integration.repro.conftest import Tdv, json_of
from tests.support.snapshot import diff, snapshot


def test_capture_without_a_command_is_a_usage_error(tdv: Tdv, repro_env: dict[str, str]) -> None:
    proc = tdv("repro", "capture", "--json")
    assert proc.returncode == 2
    document = json.loads(proc.stdout)
    assert document["message"] == "no command to capture" and "tritondev repro capture --" in document["fix"]
    assert not Path(repro_env["TRITONDEV_WORKSPACE"]).exists()


def test_reading_commands_without_a_capture_say_how_to_make_one(tdv: Tdv) -> None:
    for words in (("ls",), ("show", "k"), ("make", "k")):
        proc = tdv("repro", *words)
        assert proc.returncode == 2, proc.stderr
        assert "no capture in" in proc.stderr and "fix: capture one first: tritondev repro capture" in proc.stderr


def test_a_capture_folder_that_holds_files_is_refused(tdv: Tdv, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    before = snapshot(out)
    proc = tdv("repro", "capture", "--out", str(out), "--python", sys.executable, "--", sys.executable, "-c", "0")
    assert proc.returncode == 2 and "already exists and is not empty" in proc.stderr
    assert diff(before, snapshot(out)) == []


def test_dry_run_shows_the_hook_and_creates_nothing(tdv: Tdv, repro_env: dict[str, str]) -> None:
    proc = tdv("repro", "capture", "--dry-run", "--python", sys.executable, "--", sys.executable, "-c", "0")
    assert proc.returncode == 0, proc.stderr
    assert "TRITONDEV_CAPTURE=" in proc.stderr and "PYTHONPATH=" in proc.stderr
    assert "would put the capture hook in" in proc.stderr
    assert not Path(repro_env["TRITONDEV_WORKSPACE"]).exists()


def test_a_program_without_triton_is_run_and_nothing_is_captured(tdv: Tdv, tmp_path: Path) -> None:
    own_site = tmp_path / "own-site"
    own_site.mkdir()
    marker = tmp_path / "own-sitecustomize-ran"
    # tritondev's own Python runs it too; the captured program is the one with TRITONDEV_CAPTURE set.
    (own_site / "sitecustomize.py").write_text(
        f"import os\nopen({str(marker)!r}, 'a').write(str('TRITONDEV_CAPTURE' in os.environ) + chr(10))\n"
    )
    program = "import sys; print('program output'); sys.exit(7)"
    proc = tdv(
        "repro",
        "capture",
        "--json",
        "--python",
        sys.executable,
        "--",
        sys.executable,
        "-c",
        program,
        env={"PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[3]), str(own_site)])},
    )
    assert proc.returncode == 7  # the command's own status
    document = json.loads(proc.stdout)  # the program's output went to stderr: stdout is the one document
    assert document["returncode"] == 7 and document["kernels"] == []
    assert "program output" in proc.stderr
    assert "True" in marker.read_text().split(), "the user's own sitecustomize did not run after the hook's"
    assert json_of(tdv("repro", "ls", "--json"))["kernels"] == []
