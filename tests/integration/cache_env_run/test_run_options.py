"""`run` takes tritondev's options before `--` and the command after it; `env`/`run` put the target
environment first on PATH; every bad command gets a fix line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.support.venvs import triton_venv


def test_options_before_the_separator_are_tritondevs(cli: Cli, tmp_path: Path) -> None:
    python = triton_venv()
    dumps = tmp_path / "dumps"
    result = cli(
        "run",
        "--python",
        str(python),
        "--dump-ir",
        "--dump-dir",
        str(dumps),
        "--",
        "python",
        "-c",
        "import sys; print(sys.prefix)",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(python.parent.parent)  # `python` is the target's
    assert (dumps / "index.json").is_file()
    unknown = cli("run", "--bogus", "--", "true")
    assert unknown.returncode == 2 and "tritondev run has no option --bogus" in unknown.stderr
    assert "fix: give only its own options before `--`, the command after it" in unknown.stderr
    # After the command's first word, everything is the command's: -v is python's here, not tritondev's.
    passed = cli("run", "--python", str(python), "python", "-c", "import sys; print(sys.argv[1:])", "-v")
    assert passed.returncode == 0 and passed.stdout.strip() == "['-v']", passed.stderr


@pytest.mark.parametrize(
    ("command", "code", "needle"),
    [
        (["/etc/passwd"], 2, "is not executable"),
        ([""], 2, "the command to run is empty"),
        (["/etc"], 2, "is a folder, not a program"),
        (["/nonexistent/tool"], 3, "does not exist"),
        (["no-such-tool-anywhere"], 3, "is not on PATH"),
    ],
)
def test_a_bad_command_says_how_to_fix_it(cli: Cli, command: list[str], code: int, needle: str) -> None:
    result = cli("run", "--", *command)
    assert result.returncode == code, result.stderr
    assert needle in result.stderr and "\nfix: " in result.stderr and "Traceback" not in result.stderr


def test_dump_ir_under_the_interpreter_says_it_compiles_nothing(cli: Cli, tmp_path: Path) -> None:
    result = cli("run", "--dump-ir", "--dump-dir", str(tmp_path / "d"), "--", "true", env={"TRITON_INTERPRET": "1"})
    assert result.returncode == 0
    assert "TRITON_INTERPRET=1 is set: Triton's interpreter compiles nothing" in result.stderr
    assert "TRITON_INTERPRET=1 ran the kernels in the interpreter" in result.stderr


def test_env_puts_a_named_target_first_on_path(cli: Cli, tmp_path: Path) -> None:
    python = triton_venv()
    shown = cli("env", "--python", str(python), "--shell", "bash")
    assert shown.returncode == 0, shown.stderr
    assert f"export PATH={python.parent}{os.pathsep}" in shown.stdout
    broken = cli("env", "--python", str(tmp_path / "nothing"))
    assert broken.returncode == 2 and "fix:" in broken.stderr
    # The first python3 on PATH, found as the last resort, is what the shell finds anyway.
    found = cli("env", "--shell", "bash", env={"PATH": os.pathsep.join([str(python.parent), os.environ["PATH"]])})
    assert found.returncode == 0 and found.stdout == ""
    assert "nothing to export: no " in found.stderr  # said where the user reads it, not in what eval reads
