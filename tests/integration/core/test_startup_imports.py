"""A start of tritondev imports what the command needs: Typer's option coercion through Pydantic is not
among it (bootstrap/commands/coercion.py answers str, Path and list[str] options itself), nor the modules of
the other commands (bootstrap/cli.py builds the app of the command named first)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_a_command_starts_without_importing_pydantic(tmp_path: Path) -> None:
    """The point of the plain coercion: a start of tritondev with options given imports no Pydantic."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    probe = (
        "import sys, runpy; sys.argv = ['tritondev', 'config', 'show', '--workspace', sys.argv[1], '--json']\n"
        "try:\n    runpy.run_module('bootstrap', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('PYDANTIC' if any(m.startswith('pydantic') for m in sys.modules) else 'NONE', file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "ws")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stderr.strip().splitlines()[-1] == "NONE", done.stderr


def test_a_start_imports_the_module_of_its_command_and_no_other(tmp_path: Path) -> None:
    """`tritondev config show` imports bootstrap.commands.config and none of the 16 other command modules
    (importing them all is about a sixth of a setup that finds nothing to do)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    probe = (
        "import sys, runpy; sys.argv = ['tritondev', 'config', 'show', '--workspace', sys.argv[1], '--json']\n"
        "try:\n    runpy.run_module('bootstrap', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(' '.join(sorted({m.split('.')[2] for m in sys.modules if m.startswith('bootstrap.commands.')})), "
        "file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "ws")], env=env, capture_output=True, text=True, timeout=60
    )
    # coercion and options: the shared machinery every command is made with
    assert done.stderr.strip().splitlines()[-1] == "coercion config options", done.stderr
