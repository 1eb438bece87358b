"""A spinner with what is happening while verify, compile and purge --dry-run work in silence: on a
terminal (a real pseudo-terminal here), and nothing of it in a pipe or with --json."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.integration.kernels.kernels_src import ADD_SIGNATURE, KERNELS
from tests.support.cli import tritondev_argv
from tests.support.terminal import read_until_closed
from tests.support.venvs import triton_venv
from tests.world.world import World

SPINNER = set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")  # rich's "dots"


def _stderr_on_a_terminal(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    """(exit status, what the terminal showed on stderr, stdout through a pipe)."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        tritondev_argv(*args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=child,
        env={**env, "TERM": "xterm", "COLUMNS": "160"},
        cwd=cwd,
    )
    os.close(child)
    shown = read_until_closed(main)
    out = ""
    if proc.stdout is not None:
        with proc.stdout:
            out = proc.stdout.read().decode()
    return proc.wait(timeout=900), shown, out


@pytest.fixture
def env(clean_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    return {
        **clean_env,
        "PYTHONPATH": str(REPO),
        "TRITON_DEFAULT_FP_FUSION": "1",
        "TRITONDEV_WORKSPACE": str(tmp_path / "ws"),
    }


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("compile", "compile: add_kernel for cuda:90"),
        ("verify", "verify: running the kernels under Triton's interpreter"),
        ("purge", "looking for what provides triton/ in"),
    ],
)
@pytest.mark.slow
def test_a_spinner_on_a_terminal_and_nothing_in_a_pipe(
    env: dict[str, str], tmp_path: Path, name: str, says: str
) -> None:
    python = str(triton_venv())
    (tmp_path / "k.py").write_text(KERNELS)
    args = {
        "compile": [
            "compile",
            "k.py::add_kernel",
            "-s",
            ADD_SIGNATURE,
            "-c",
            "BLOCK=64",
            "-t",
            "cuda:90",
            "-o",
            str(tmp_path / "out"),
            "--python",
            python,
        ],
        "verify": ["verify", "--python", python, "--target", "cuda:90"],
        "purge": ["purge", "--dry-run", "--python", python],
    }[name]
    code, shown, _ = _stderr_on_a_terminal(args, env, tmp_path)
    assert code == 0, shown[-3000:]
    assert says in shown and SPINNER & set(shown), shown[-2000:]
    piped = subprocess.run(tritondev_argv(*args), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert piped.returncode == 0
    assert says not in piped.stderr and not SPINNER & set(piped.stderr + piped.stdout)
    if name != "purge":  # with --json, even on a terminal: nothing but the one document
        code, shown, out = _stderr_on_a_terminal([*args, "--json"], env, tmp_path)
        assert code == 0 and says not in shown and not SPINNER & set(shown)
        assert out.lstrip().startswith("{") and not SPINNER & set(out)


def test_setup_says_it_creates_the_venv_while_python_m_venv_is_silent(
    env: dict[str, str], tmp_path: Path, world: World
) -> None:
    """`python -m venv` prints nothing for about 10 s while it puts pip into the venv: on a terminal a
    spinner says what happens. (Interrupted once it shows: the rest of setup is not this test's.)"""
    import select
    import signal
    import time

    main, child = pty.openpty()
    proc = subprocess.Popen(
        tritondev_argv(
            "setup",
            "--mirror",
            str(world.git_root),
            "--triton-commit",
            world.triton_commits["main"],
            "--llvm",
            "source",
        ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=child,
        env={**env, "TERM": "xterm", "COLUMNS": "200"},
        cwd=tmp_path,
    )
    os.close(child)
    shown, deadline = "", time.monotonic() + 600
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if select.select([main], [], [], 0.5)[0]:
                shown += os.read(main, 65536).decode(errors="replace")
            if "creating the venv" in shown and SPINNER & set(shown[shown.index("creating the venv") - 8 :]):
                break
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
        shown += read_until_closed(main)
    assert "creating the venv" in shown and "python -m venv installs pip into it" in shown, shown[-3000:]
