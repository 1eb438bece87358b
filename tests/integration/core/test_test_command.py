"""shell/test's scratch: where root may mount, the tests' temporary files live in a tmpfs of the run's own,
unmounted when the run passes and kept (and named) when tests failed; TRITONDEV_TEST_SCRATCH=disk leaves
TMPDIR as it is, and a wrong value is refused before anything is installed.

The script runs for real, in a folder of its own, with the real mount, umount and shellcheck. The tools it
would start after its set-up (the test venv's python for pip, compileall and pytest; ruff; mypy) are small
stand-ins in that folder's `.venv-test/bin`: the real ones would run this whole suite again from inside
it. The stand-in pytest records the TMPDIR it was given, leaves a file there and exits as the test says.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.environ import child_environ

REPO = Path(__file__).resolve().parents[3]

STAND_IN_PYTHON = """#!/usr/bin/env bash
if [[ "${1:-} ${2:-}" == "-m pytest" ]]; then
  printf '%s' "$TMPDIR" >"$RECORD/tmpdir"
  if mountpoint -q "$TMPDIR"; then echo yes >"$RECORD/mounted"; else echo no >"$RECORD/mounted"; fi
  echo "a failed test's files" >"$TMPDIR/left-by-a-test"
  exit "${PYTEST_STATUS:-0}"
fi
echo "$*" >>"$RECORD/other"
"""
STAND_IN_TOOL = '#!/usr/bin/env bash\necho "$(basename "$0") $*" >>"$RECORD/other"\n'


def _mounts_under(folder: Path) -> list[str]:
    """Mount points at or under `folder` (/proc/self/mountinfo's fifth field)."""
    lines = Path("/proc/self/mountinfo").read_text().splitlines()
    points = [line.split()[4] for line in lines]
    return [p for p in points if p == str(folder) or p.startswith(f"{folder}/")]


@pytest.fixture(scope="module")
def can_mount(tmp_path_factory: pytest.TempPathFactory) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None or shutil.which("shellcheck") is None:
        pytest.skip("needs root, mount and shellcheck (shell/test mounts its tmpfs only as root)")
    probe = tmp_path_factory.mktemp("probe")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(probe)], capture_output=True).returncode:
        pytest.skip("this machine refuses a tmpfs mount (a container without the right)")
    subprocess.run(["umount", str(probe)], check=True)


def _checkout(root: Path) -> Path:
    """A folder with shell/test as the repository has it, and the stand-ins in its test venv."""
    (root / "shell").mkdir(parents=True)
    shutil.copy2(REPO / "shell" / "test", root / "shell" / "test")
    bin_dir = root / ".venv-test" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("python", STAND_IN_PYTHON), ("ruff", STAND_IN_TOOL), ("mypy", STAND_IN_TOOL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (root / "record").mkdir()
    return root


def _run(root: Path, tmpdir: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {**child_environ(), "TMPDIR": str(tmpdir), "RECORD": str(root / "record")}
    env.pop("TRITONDEV_TEST_SCRATCH", None)
    env.update(variables)
    return subprocess.run(
        [str(root / "shell" / "test"), "--fast"], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_passing_run_had_its_own_tmpfs_and_leaves_no_mount(can_mount: None, tmp_path: Path) -> None:
    root, tmpdir = _checkout(tmp_path / "repo"), tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _run(root, tmpdir)
    assert proc.returncode == 0, proc.stderr
    seen = Path((root / "record" / "tmpdir").read_text())
    assert seen.parent == tmpdir and seen.name.startswith("tritondev-test-scratch.")
    assert (root / "record" / "mounted").read_text().strip() == "yes"
    assert _mounts_under(tmpdir) == []  # unmounted, and its folder gone with what the tests left there
    assert list(tmpdir.iterdir()) == []


def test_a_failed_run_keeps_its_tmpfs_and_names_it(can_mount: None, tmp_path: Path) -> None:
    root, tmpdir = _checkout(tmp_path / "repo"), tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _run(root, tmpdir, PYTEST_STATUS="1")
    seen = Path((root / "record" / "tmpdir").read_text())
    try:
        assert proc.returncode == 1, proc.stderr
        assert _mounts_under(tmpdir) == [str(seen)]
        assert (seen / "left-by-a-test").read_text() == "a failed test's files\n"
        assert f"the tests' files are kept in {seen}" in proc.stderr
    finally:
        for point in reversed(_mounts_under(tmpdir)):  # whatever the run left mounted there
            subprocess.run(["umount", point], capture_output=True)


def test_disk_leaves_tmpdir_as_it_is(can_mount: None, tmp_path: Path) -> None:
    root, tmpdir = _checkout(tmp_path / "repo"), tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _run(root, tmpdir, TRITONDEV_TEST_SCRATCH="disk")
    assert proc.returncode == 0, proc.stderr
    assert (root / "record" / "tmpdir").read_text() == str(tmpdir)
    assert _mounts_under(tmpdir) == []


@pytest.mark.parametrize("value", ["tmpfs", "Memory", "memory disk", "disk "])
def test_a_wrong_value_is_refused_before_anything_runs(tmp_path: Path, value: str) -> None:
    root, tmpdir = _checkout(tmp_path / "repo"), tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _run(root, tmpdir, TRITONDEV_TEST_SCRATCH=value)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"test: TRITONDEV_TEST_SCRATCH is '{value}'",
        "fix: TRITONDEV_TEST_SCRATCH=memory (a tmpfs, the default) or TRITONDEV_TEST_SCRATCH=disk",
    ]
    assert list((root / "record").iterdir()) == []  # no pip, no tool, no pytest started
    assert list(tmpdir.iterdir()) == [] and _mounts_under(tmpdir) == []
