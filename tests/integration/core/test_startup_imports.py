"""A start of tritondev imports what the command needs: Typer's option coercion through Pydantic is not
among it (bootstrap/commands/coercion.py answers str, Path and list[str] options itself), nor the modules of
the other commands (bootstrap/cli.py builds the app of the command named first)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def _after_config_show(tmp_path: Path, report: str) -> str:
    """What `report` (a Python expression over the imported module names, `names`) says after a real
    `tritondev config show --workspace <tmp> --json` in this process's interpreter."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    probe = (
        "import sys, runpy; sys.argv = ['tritondev', 'config', 'show', '--workspace', sys.argv[1], '--json']\n"
        "try:\n    runpy.run_module('bootstrap', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        f"names = list(sys.modules)\nprint({report}, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "ws")], env=env, capture_output=True, text=True, timeout=60
    )
    lines = done.stderr.strip().splitlines()
    assert lines, done
    return lines[-1]


def test_a_command_starts_without_importing_pydantic(tmp_path: Path) -> None:
    """The point of the plain coercion: a start of tritondev with options given imports no Pydantic."""
    said = _after_config_show(tmp_path, "'PYDANTIC' if any(m.startswith('pydantic') for m in names) else 'NONE'")
    assert said == "NONE"


def test_a_start_imports_the_module_of_its_command_and_no_other(tmp_path: Path) -> None:
    """`tritondev config show` imports bootstrap.commands.config and none of the 16 other command modules
    (importing them all is about a sixth of a setup that finds nothing to do)."""
    said = _after_config_show(
        tmp_path, "' '.join(sorted({m.split('.')[2] for m in names if m.startswith('bootstrap.commands.')}))"
    )
    # coercion and options: the shared machinery every command is made with
    assert said == "coercion config options"
