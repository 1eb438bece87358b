"""The unit tier mirrors bootstrap/: a test of `bootstrap/pipeline/llvm/` sits in `tests/unit/pipeline/llvm/`,
so the tests of a module are found where the module is, and a folder of tests names the package it tests.

Folders that test what is not a package of bootstrap/: `docs` (the documentation and the architecture
rules), `perf` (the benchmark harness under tests/perf/) and `suite` (the test suite itself). `commands`
also holds the tests of the command line around the commands (bootstrap/cli.py, bootstrap/program.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
UNIT = REPO / "tests" / "unit"
NOT_PACKAGES = {"docs", "perf", "suite"}
COMMAND_LINE = {"bootstrap.cli", "bootstrap.program"}


def folders_of_tests() -> list[Path]:
    return sorted({path.parent for path in UNIT.rglob("test_*.py")} - {UNIT})


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(parsed(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_every_folder_of_unit_tests_names_a_package_of_bootstrap() -> None:
    wrong = [
        folder.relative_to(UNIT).as_posix()
        for folder in folders_of_tests()
        if folder.relative_to(UNIT).parts[0] not in NOT_PACKAGES
        and not (REPO / "bootstrap" / folder.relative_to(UNIT) / "__init__.py").is_file()
    ]
    assert not wrong, f"folders of tests/unit/ with no package of that path in bootstrap/: {wrong}"


def test_every_unit_test_file_tests_the_package_it_sits_in() -> None:
    wrong = []
    for folder in folders_of_tests():
        relative = folder.relative_to(UNIT)
        if relative.parts[0] in NOT_PACKAGES:
            continue
        package = ".".join(("bootstrap", *relative.parts))
        for path in sorted(folder.glob("test_*.py")):
            modules = imported_modules(path)
            ours = {m for m in modules if m == package or m.startswith(package + ".")}
            if package == "bootstrap.commands":
                ours |= modules & COMMAND_LINE
            if not ours:
                wrong.append(path.relative_to(REPO).as_posix())
    assert not wrong, f"unit test files that import nothing of the package their folder mirrors: {wrong}"
