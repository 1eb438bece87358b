"""Tests, benchmarks and GPU figures clean a child's environment one way: `tests.support.environ`."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.environ import child_environ, dropped
from tests.support.source_scan import places

TESTS = Path(__file__).resolve().parents[2]
HELPER = TESTS / "support" / "environ.py"
THIS_FILE = Path(__file__).resolve()
PREFIXES = {"TRITONDEV_", "TRITON_", "TRITON"}  # a filter of tritondev's or Triton's variables


def _filters_settings(node: ast.AST) -> bool:
    """`x.startswith("TRITON_")` or `x.startswith((..., "TRITONDEV_", ...))`: an environment filter of its own."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith"):
        return False
    args = [a for arg in node.args for a in (arg.elts if isinstance(arg, ast.Tuple) else [arg])]
    return any(isinstance(a, ast.Constant) and a.value in PREFIXES for a in args)


def hand_written_filters(root: Path) -> list[str]:
    return places(root, _filters_settings, skip=(HELPER, THIS_FILE))


def test_no_test_filters_the_environment_itself() -> None:
    assert hand_written_filters(TESTS) == [], "clean a child's environment with tests.support.environ"


def test_the_check_finds_a_filter_written_by_hand(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        'import os\nENV = {k: v for k, v in os.environ.items() if not k.startswith(("TRITONDEV_", "X_"))}\n'
        'OK = "TRITON_DEV_X".startswith("TRITON_DEV_")\n'
    )
    assert hand_written_filters(tmp_path / "tests") == ["tests/test_x.py:2"]


def test_what_a_child_does_not_inherit() -> None:
    base = {
        "PATH": "/bin",
        "HOME": "/h",
        "TRITONDEV_WORKSPACE": "/ws",
        "TRITON_CACHE_DIR": "/c",
        "VIRTUAL_ENV": "/v",
        "VIRTUAL_ENV_PROMPT": "(v)",
        "CONDA_PREFIX": "/conda",
        "PYTEST_ADDOPTS": "--junitxml=x",
        "PYTEST_XDIST_WORKER": "gw0",
        "TORCHINDUCTOR_CACHE_DIR": "/t",
        "LLVM_SYSPATH": "/l",
    }
    assert child_environ(base=base) == {
        "PATH": "/bin",
        "HOME": "/h",
        "TORCHINDUCTOR_CACHE_DIR": "/t",
        "LLVM_SYSPATH": "/l",
    }
    assert child_environ("TORCHINDUCTOR_", "LLVM_", base=base) == {"PATH": "/bin", "HOME": "/h"}
    assert not dropped("TRITON") and not dropped("CONDA_PREFIX_1") and dropped("TRITON_INTERPRET")
