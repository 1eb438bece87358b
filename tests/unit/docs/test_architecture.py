"""docs/architecture.md stays true: imports follow its layers, and every module it names exists.

The layers, lowest first; a module may import from its own package and from lower layers only. The
few imports against that direction are listed in EXCEPTIONS with the reason (the same list is in
docs/architecture.md); a new one fails here until it is moved or listed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "bootstrap"
ARCHITECTURE = REPO / "docs" / "architecture.md"

LAYERS: dict[str, int] = {name: n for n, name in enumerate((
    "core", "git", "env", "purge", "kernels", "docker", "pipeline", "ir", "doctor", "commands", "cli", "__main__"))}

# (importing module, imported module): why it points the other way.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    base = REPO.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imported_modules(tree: ast.Module) -> set[str]:
    """Every bootstrap module a file imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from bootstrap.pipeline import llvm_source` imports the module bootstrap.pipeline.llvm.source.
            subs = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update({sub for sub in subs if is_module(sub)} or {node.module})
    return {name for name in found if name.startswith("bootstrap.")}


def layer(module: str) -> tuple[str, int]:
    package = module.split(".")[1]
    assert package in LAYERS, f"{package}: a package docs/architecture.md does not place in a layer"
    return package, LAYERS[package]


def all_imports() -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        me = module_name(path)
        pairs.extend((me, other) for other in sorted(imported_modules(ast.parse(path.read_text()))))
    return pairs


def test_every_import_points_down_the_layers() -> None:
    wrong = []
    for me, other in all_imports():
        (mine, my_layer), (theirs, their_layer) = layer(me), layer(other)
        if mine != theirs and their_layer >= my_layer and (me, other) not in EXCEPTIONS:
            wrong.append(f"{me} imports {other} ({mine} is layer {my_layer}, {theirs} layer {their_layer})")
    assert not wrong, "\n".join(wrong)


def test_every_listed_exception_is_still_needed() -> None:
    pairs = set(all_imports())
    assert not [pair for pair in EXCEPTIONS if pair not in pairs]


def test_architecture_names_only_modules_that_exist() -> None:
    text = ARCHITECTURE.read_text()
    named = set(re.findall(r"\bbootstrap/[\w/]+(?:\.py)?(?![\w*])", text))
    assert len(named) > 40
    missing = [path for path in sorted(named) if not (REPO / path).exists()]
    assert not missing, missing


def test_architecture_lists_every_exception() -> None:
    text = ARCHITECTURE.read_text()
    for me, other in EXCEPTIONS:
        assert me.replace(".", "/") in text and other.replace(".", "/") in text, (me, other)
