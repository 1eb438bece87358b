"""README "What a session looks like" works as written where only `python3` holds torch and Triton.

The block's commands run in order, by bash, with a fresh HOME, no active environment, and a PATH
whose first python3 is a cached venv's interpreter with the real triton and torch wheels (not
activated). They start where a new user stands after cloning, in a tritondev checkout, and the
block's first line takes them to a folder of their own: nothing may be written into the checkout.
`tritondev` is this checkout's CLI. Here, without a GPU, the commands before the source build run
(`run --dump-ir` launches the kernel, so it waits for the GPU variant); the build itself takes an
hour and is the build tier's.
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
from tests.support.environ import child_environ
from tests.support.venvs import triton_venv

SOURCE_BUILD = "setup --build-type"


def session_commands() -> list[str]:
    """The block's commands, one string each (a here-document or a continued line kept whole)."""
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## What a session looks like") : readme.index("## Commands")]
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


TRITONDEV = re.compile(r"(?<![\w/.-])tritondev(?= )")


def _run_session(commands: list[str], start: Path, env: dict[str, str]) -> Path:
    """Run the commands from `start`; each runs where the one before left (its `cd`). Returns that folder."""
    cli = f"{shlex.quote(sys.executable)} -m bootstrap"
    cwd = start
    for command in commands:
        script = "set -euo pipefail\n" + TRITONDEV.sub(cli, command) + '\nprintf "\\n@@cwd %s" "$PWD"'
        proc = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
        if "setup --dry-run" in command and proc.returncode == 4 and "cannot resolve" in proc.stderr:
            # Offline (this machine reaches no GitHub): the dry run shows what it knows and ends as the real
            # run would, exit 4, with the one line that says why.
            assert "# build: " in proc.stdout and proc.stderr.count("error: ") == 1, proc.stderr
            continue
        assert proc.returncode == 0, f"{command.splitlines()[0]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
        cwd = Path(proc.stdout.rsplit("@@cwd ", 1)[1])
    return cwd


def _a_checkout(tmp_path: Path) -> Path:
    """Where a new user stands: a clone of tritondev (the files that matter to where output goes)."""
    checkout = tmp_path / "src" / "tritondev"
    (checkout / "shell").mkdir(parents=True)
    (checkout / "shell" / "tritondev").write_text("#!/bin/sh\n")
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    return checkout


def _first_run_env(tmp_path: Path, python_dir: Path | None) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = child_environ()
    path = os.pathsep.join([str(python_dir), env["PATH"]]) if python_dir else env["PATH"]
    env.update(HOME=str(home), PATH=path, PYTHONPATH=str(REPO))
    return env


def test_the_block_is_what_this_test_runs() -> None:
    commands = session_commands()
    assert commands[0].startswith("mkdir -p ~/triton-play && cd ~/triton-play")
    assert commands[1].startswith("cat > k.py <<'PY'") and commands[1].endswith("\nPY")
    assert any(SOURCE_BUILD in c for c in commands)
    assert any("compile k.py::add_kernel" in c and "--out ir/" in c for c in commands)


@pytest.mark.slow
def test_the_session_before_the_source_build(tmp_path: Path) -> None:
    commands = session_commands()
    before = commands[: next(i for i, c in enumerate(commands) if SOURCE_BUILD in c)]
    here = [c for c in before if "run --dump-ir" not in c]
    assert len(here) == len(before) - 1
    env = _first_run_env(tmp_path, triton_venv().parent)
    checkout = _a_checkout(tmp_path)
    ended = _run_session(here, checkout, env)
    mine = tmp_path / "home" / "triton-play"
    assert ended == mine
    assert (mine / "k.py").is_file() and (mine / "ir" / "cuda-90" / "add_kernel.sass").is_file()
    assert (mine / "ir" / "hip-gfx942" / "add_kernel.amdgcn").is_file()
    assert sorted(p.name for p in checkout.iterdir()) == [".git", "shell"]  # nothing written into the checkout
    assert not (tmp_path / "home" / "tritondev").exists()  # reading and dry runs created no workspace
    assert not (tmp_path / "home" / ".triton").exists()


@pytest.mark.gpu
def test_the_session_before_the_source_build_on_the_gpu(tmp_path: Path) -> None:
    """On the GPU machine, with its own python3 as it is: run --dump-ir launches the kernel too."""
    commands = session_commands()
    before = commands[: next(i for i, c in enumerate(commands) if SOURCE_BUILD in c)]
    _run_session(before, _a_checkout(tmp_path), _first_run_env(tmp_path, None))
    dumps = list((tmp_path / "home" / "tritondev" / "dumps").glob("*/index.json"))
    assert dumps, "run --dump-ir captured no IR"
