"""README "What a session looks like" works as written where only `python3` holds torch and Triton.

The block's commands run in order, by bash, in a fresh folder with a fresh HOME, no active
environment, and a PATH whose first python3 is a cached venv's interpreter with the real triton and
torch wheels (not activated). `./shell/tritondev` is this checkout's CLI. Here, without a GPU, the
commands before the source build run (`run --dump-ir` launches the kernel, so it waits for the GPU
variant); the build itself takes an hour and is the build tier's.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.venvs import triton_venv

SOURCE_BUILD = "setup --build-type"


def session_commands() -> list[str]:
    """The block's commands, one string each (a here-document or a continued line kept whole)."""
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## What a session looks like"):readme.index("## Commands")]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None
    commands: list[str] = []
    lines = iter(block.group(1).splitlines())
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text = line
        heredoc = re.search(r"<<'(\w+)'", line)
        if heredoc:
            for more in lines:
                text += "\n" + more
                if more == heredoc.group(1):
                    break
        while text.endswith("\\"):
            text += "\n" + next(lines)
        commands.append(text)
    return commands


def _run_session(commands: list[str], tmp_path: Path, env: dict[str, str]) -> None:
    cli = f"{shlex.quote(sys.executable)} -m bootstrap"
    for command in commands:
        proc = subprocess.run(["bash", "-c", "set -euo pipefail\n" + command.replace("./shell/tritondev", cli)],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{command.splitlines()[0]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}"


def _first_run_env(tmp_path: Path, python_dir: Path | None) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TRITONDEV_", "TRITON_")) and k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    path = os.pathsep.join([str(python_dir), env["PATH"]]) if python_dir else env["PATH"]
    env.update(HOME=str(home), PATH=path, PYTHONPATH=str(REPO))
    return env


def test_the_block_is_what_this_test_runs() -> None:
    commands = session_commands()
    assert commands[0].startswith("cat > k.py <<'PY'") and commands[0].endswith("\nPY")
    assert any(SOURCE_BUILD in c for c in commands)
    assert any("compile k.py::add_kernel" in c and "--out ir/" in c for c in commands)


def test_the_session_before_the_source_build(tmp_path: Path) -> None:
    commands = session_commands()
    before = commands[:next(i for i, c in enumerate(commands) if SOURCE_BUILD in c)]
    here = [c for c in before if "run --dump-ir" not in c]
    assert len(here) == len(before) - 1
    env = _first_run_env(tmp_path, triton_venv().parent)
    _run_session(here, tmp_path, env)
    assert (tmp_path / "ir" / "cuda-90" / "add_kernel.sass").is_file()
    assert (tmp_path / "ir" / "hip-gfx942" / "add_kernel.amdgcn").is_file()
    assert not (tmp_path / "home" / "tritondev").exists()  # reading and dry runs created no workspace
    assert not (tmp_path / "home" / ".triton").exists()


@pytest.mark.gpu
def test_the_session_before_the_source_build_on_the_gpu(tmp_path: Path) -> None:
    """On the GPU machine, with its own python3 as it is: run --dump-ir launches the kernel too."""
    commands = session_commands()
    before = commands[:next(i for i, c in enumerate(commands) if SOURCE_BUILD in c)]
    _run_session(before, tmp_path, _first_run_env(tmp_path, None))
    dumps = list((tmp_path / "home" / "tritondev" / "dumps").glob("*/index.json"))
    assert dumps, "run --dump-ir captured no IR"
