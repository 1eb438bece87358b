"""The fast tier (`./shell/test --fast`: lint and this unit tier) reaches every module of bootstrap/: a
unit test imports it, or a module such a test imports imports it when it is itself imported (an import
inside a function counts only in a test; the commands are loaded by name, bootstrap.commands.
COMMAND_MODULES, by the --help tests). A new module needs a unit test of its own parts (no process
started) before it is merged.

Not imported here, each for its reason (EXEMPT): the in-target scripts run inside the target
interpreter with its triton and torch, never imported by tritondev (the integration tier runs each);
bootstrap/__main__.py runs the program when imported (bootstrap.program, which it calls, is tested).
"""

from __future__ import annotations

import ast
from pathlib import Path

from bootstrap.commands import COMMAND_MODULES
from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
EXEMPT_PREFIXES = ("bootstrap.core.target.scripts",)
EXEMPT = {"bootstrap.__main__"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _executed_imports(tree: ast.Module) -> list[ast.stmt]:
    """The import statements that run when a module is imported: at module level (in an `if` or `try`
    too), not inside functions, nor under `if TYPE_CHECKING:`; and in a command's `register(app)`, which
    the CLI calls at its start (bootstrap.commands)."""
    found: list[ast.stmt] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.FunctionDef) and node.name == "register":
            todo += node.body
        elif isinstance(node, ast.If) and not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            todo += node.body + node.orelse
        elif isinstance(node, ast.Try):
            todo += node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
    return found


def _imports(path: Path, known: set[str], *, anywhere: bool) -> set[str]:
    """The bootstrap modules a file imports: those its import runs, or (anywhere: a test file, whose
    functions run) every import statement in it."""
    package = _module_name(path).split(".") if path.is_relative_to(REPO / "bootstrap") else []
    if path.name != "__init__.py":
        package = package[:-1]
    tree = parsed(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree) if anywhere else _executed_imports(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            found |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & known
    return found


def test_every_module_is_reached_by_the_unit_tier() -> None:
    files = {_module_name(p): p for p in (REPO / "bootstrap").rglob("*.py")}
    known = set(files)
    todo = {f"bootstrap.commands.{name}" for name in COMMAND_MODULES} & known
    for test in (REPO / "tests" / "unit").rglob("*.py"):
        todo |= _imports(test, known, anywhere=True)
    reached: set[str] = set()
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo |= _imports(files[module], known, anywhere=False) - reached
    missing = sorted(m for m in known - reached if m not in EXEMPT and not m.startswith(EXEMPT_PREFIXES))
    assert missing == [], f"modules no unit test reaches (add a unit test of their parts): {missing}"
