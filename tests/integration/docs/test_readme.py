"""The README stays true: every guarantee names tests that exist, and the documented commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import Cli

REPO = Path(__file__).resolve().parents[3]
README = (REPO / "README.md").read_text()


def test_readme_commands_are_real(cli: Cli) -> None:
    table = README[README.index("## Commands") : README.index("## Settings")]
    commands = {m.split()[0] for m in re.findall(r"^\| `([a-z]+[^`]*)`", table, re.MULTILINE)}
    result = cli("--help")
    for command in commands:
        assert command in result.stdout, command
