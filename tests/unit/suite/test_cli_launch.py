"""Tests, benchmarks and GPU figures start the CLI one way: `tests.support.cli.tritondev_argv`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.support.cli import tritondev_argv
from tests.support.source_scan import places

TESTS = Path(__file__).resolve().parents[2]
HELPER = TESTS / "support" / "cli.py"
THIS_FILE = Path(__file__).resolve()  # its last test spells the command line out to compare


def _starts_bootstrap(node: ast.AST) -> bool:
    """A list or tuple literal holding the adjacent items "-m", "bootstrap": a command line of its own."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return False
    items = [item.value if isinstance(item, ast.Constant) else None for item in node.elts]
    return any(items[i] == "-m" and items[i + 1] == "bootstrap" for i in range(len(items) - 1))


def ad_hoc_launches(root: Path) -> list[str]:
    return places(root, _starts_bootstrap, skip=(HELPER, THIS_FILE))


def test_no_test_builds_the_cli_command_line_itself() -> None:
    assert ad_hoc_launches(TESTS) == [], "start the CLI with tests.support.cli.tritondev_argv"


def test_the_check_finds_a_command_line_built_by_hand(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text('import sys\nARGV = [sys.executable, "-m", "bootstrap", "doctor"]\n')
    assert ad_hoc_launches(tmp_path / "tests") == ["tests/test_x.py:2"]


def test_the_helper_runs_this_checkout_with_this_python() -> None:
    assert tritondev_argv("doctor", "--json") == [sys.executable, "-m", "bootstrap", "doctor", "--json"]
