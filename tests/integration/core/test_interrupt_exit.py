"""An interruption tritondev handled exits 130, also when the Ctrl-C landed in an exec of source text.

CPython remembers a KeyboardInterrupt that ended an exec of source text (dataclasses create their methods
so: a Ctrl-C while a command imports its modules lands there) and, for a program run as `python -m`, ends
the process at exit by SIGINT (-2 to a parent) instead of the exit code the program chose. The program's
end forgets it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PROGRAM = """
import sys
from bootstrap import cli, program


def main(ctrl_c):
    try:
        exec("raise KeyboardInterrupt")  # as a Ctrl-C inside a dataclass's generated methods
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    sys.exit(130)


cli.main = main
program.run()
"""


def test_a_handled_interruption_exits_130_not_by_the_signal(tmp_path: Path) -> None:
    (tmp_path / "interrupted_entry.py").write_text(PROGRAM)  # run as -m, as `python -m bootstrap` is
    proc = subprocess.run(
        [sys.executable, "-m", "interrupted_entry"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tmp_path}:{REPO}"},
    )
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr == "interrupted\n"
