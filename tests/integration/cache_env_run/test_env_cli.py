"""`tritondev env`: exports that real shells evaluate back to the same values."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError, UsageError
from bootstrap.env.envfile import update_env_file
from bootstrap.env.exports import fish_quote, render_exports
from tests.conftest import REPO, Cli

# Values a ptxas path or cache dir could really hold, and worse.
TRICKY = {
    "TRITON_PTXAS_PATH": "/opt/cuda 12.8/bin/ptxas",
    "TRITON_CACHE_DIR": "/data/it's $HOME/`cache`",
    "TRITONDEV_TEST_BACKSLASH": "a\\b\\'c\"d",
    "TRITONDEV_TEST_EMPTY": "",
}


def shell_values(shell: str, program: str, names: list[str], env: dict[str, str]) -> dict[str, str | None]:
    """Run `program` in a real `shell`, then read the variables back from a child process's environment."""
    reader = "import json, os, sys; print(json.dumps({n: os.environ.get(n) for n in sys.argv[1:]}))"
    script = program + f"\n{sys.executable} -c '{reader}' " + " ".join(names)
    out = subprocess.run([shell, "-c", script], capture_output=True, text=True, check=True, env=env)
    values: dict[str, str | None] = json.loads(out.stdout.strip().splitlines()[-1])
    return values


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "sh"])
def test_eval_in_real_shells_round_trips(clean_env: dict[str, str], workspace: Path, shell: str) -> None:
    """What users type: eval "$(tritondev env --dump-ir)" (fish: tritondev env --shell fish | source)."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    workspace.mkdir()
    update_env_file(workspace / "env.sh", TRICKY)  # what doctor --fix writes
    env = {**clean_env, "TRITONDEV_WORKSPACE": str(workspace), "PYTHONPATH": str(REPO), "SHELL": f"/bin/{shell}"}
    tritondev = f"{sys.executable} -m bootstrap"
    program = f"{tritondev} env --dump-ir | source" if shell == "fish" else f'eval "$({tritondev} env --dump-ir)"'
    names = [*TRICKY, "MLIR_ENABLE_DUMP", "NVPTX_ENABLE_DUMP", "TRITON_ALWAYS_COMPILE", "TRITON_DISABLE_LINE_INFO"]
    got = shell_values(shell, program, names, env)
    assert {n: got[n] for n in TRICKY} == TRICKY
    assert got["MLIR_ENABLE_DUMP"] == got["NVPTX_ENABLE_DUMP"] == got["TRITON_ALWAYS_COMPILE"] == "1"
    assert got["TRITON_DISABLE_LINE_INFO"] == "1"


def test_stdout_holds_only_exports(cli: Cli, workspace: Path) -> None:
    workspace.mkdir()
    update_env_file(workspace / "env.sh", {"TRITON_PTXAS_PATH": "/usr/local/cuda/bin/ptxas"})
    for shell, prefix in (("bash", "export "), ("zsh", "export "), ("fish", "set -gx ")):
        result = cli("env", "--shell", shell)
        assert result.returncode == 0
        lines = result.stdout.splitlines()
        assert lines and all(line.startswith(prefix) for line in lines)
        assert "TRITON_PTXAS_PATH" in result.stdout and "MLIR_ENABLE_DUMP" not in result.stdout


def test_backend_picks_the_assembly_dump(cli: Cli) -> None:
    nvidia = cli("env", "--dump-ir", "--shell", "bash").stdout
    amd = cli("env", "--dump-ir", "--backend", "amd", "--shell", "bash").stdout
    from_env = cli("env", "--dump-ir", "--shell", "bash", env={"TRITONDEV_BACKEND": "amd"}).stdout
    assert "NVPTX_ENABLE_DUMP=1" in nvidia and "AMDGCN" not in nvidia
    assert "AMDGCN_ENABLE_DUMP=1" in amd and "NVPTX" not in amd
    assert from_env == amd


def test_no_env_file_no_dump_prints_nothing(cli: Cli, workspace: Path) -> None:
    result = cli("env")
    assert result.returncode == 0 and result.stdout == ""
    assert not workspace.exists()  # reading never creates a workspace


def test_shell_from_dollar_shell(cli: Cli) -> None:
    assert cli("env", "--dump-ir", env={"SHELL": "/usr/bin/fish"}).stdout.startswith("set -gx ")
    assert cli("env", "--dump-ir", env={"SHELL": "/bin/tcsh"}).stdout.startswith("export ")


@pytest.mark.parametrize("args", [["--shell", "tcsh"], ["--backend", "intel"]])
def test_bad_choices_exit_2(cli: Cli, args: list[str]) -> None:
    result = cli("env", "--dump-ir", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr


def test_render_rejects_bad_names_and_shells() -> None:
    with pytest.raises(ConfigError):
        render_exports({"BAD-NAME": "x"}, "bash")
    with pytest.raises(UsageError):
        render_exports({"A": "x"}, "csh")
    assert fish_quote("it's \\ here") == "'it\\'s \\\\ here'"
