"""A fix line that names a tritondev command repeats the options that chose the target (--python,
--workspace, doctor's own --check), in text and in JSON, and following it does what it says."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.integration.doctor.wheels import build_wheel
from tests.support.venvs import fresh_venv


@pytest.mark.slow
def test_doctor_on_another_python_suggests_a_fix_for_that_python(cli: Cli, tmp_path: Path) -> None:
    py = fresh_venv(tmp_path / "venv with space")
    wheels = tmp_path / "wheels"
    init = "__version__ = '3.5.0'\n"
    a = build_wheel(wheels, "triton", "3.5.0", {"triton/__init__.py": init, "triton/language.py": ""})
    b = build_wheel(wheels, "pytorch-triton", "3.5.0+git7416ffcb", {"triton/__init__.py": init, "triton/jit.py": ""})
    subprocess.run(
        [
            str(py),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            str(a),
            str(b),
        ],
        check=True,
    )
    ws = tmp_path / "ws"
    args = ("doctor", "--python", str(py), "--workspace", str(ws), "--check", "packages")
    result = cli(*args, "--json")
    assert result.returncode == 1
    fix = checks_of(result.stdout)["packages.triton-owners"]["fix"]
    wanted = (
        f"tritondev doctor --workspace {shlex.quote(str(ws))} --python {shlex.quote(str(py))} --check packages --fix"
    )
    assert fix.startswith(wanted), fix
    assert f"tritondev setup --workspace {shlex.quote(str(ws))} --python {shlex.quote(str(py))}" in fix, fix
    text = cli(*args)
    assert f"fix: {wanted}" in text.stdout, text.stdout
    # The same options given before the command name count as given.
    before = cli("--python", str(py), "--workspace", str(ws), "doctor", "--check", "packages", "--json")
    assert checks_of(before.stdout)["packages.triton-owners"]["fix"] == fix
    # Following the fix line as printed fixes what was found, in that interpreter.
    followed = cli(*shlex.split(wanted)[1:], "--json")
    assert followed.returncode == 0, followed.stdout + followed.stderr
    assert json.loads(followed.stdout)["fixes"][0]["status"] == "fixed"


def test_an_error_fix_repeats_the_workspace(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "my ws"
    ws.mkdir()
    result = cli("build", "--workspace", str(ws))
    assert result.returncode == 2
    assert f"fix: run `tritondev setup --workspace {shlex.quote(str(ws))}` first" in result.stderr, result.stderr
