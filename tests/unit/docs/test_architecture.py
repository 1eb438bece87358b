"""docs/architecture.md stays true: every module is on its map, imports only point down, nothing imports in a circle.

Imports are read with ast from every module of bootstrap/, wherever they stand: at the top, inside a
function, under `if TYPE_CHECKING:`. A late import hides a cycle from Python at run time, not from here.
There is no list of exceptions: an import that points up is moved, or the code it needs moves down.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "bootstrap"
ARCHITECTURE = REPO / "docs" / "architecture.md"

# The top-level packages of bootstrap/, lowest first: a module imports from its own package and from
# packages to its left only. docs/architecture.md states the same line (test_the_map_states_the_layers).
LAYERS = (
    "core",
    "git",
    "env",
    "purge",
    "kernels",
    "docker",
    "pipeline",
    "ir",
    "repro",
    "doctor",
    "commands",
    "cli",
    "program",
    "__main__",
)
# Where bootstrap imports inside a function are allowed: the command line, so that `--help` stays fast,
# and the program, whose Ctrl-C handler is in place before the command line's imports.
LATE_IMPORTS_ALLOWED = ("bootstrap.cli", "bootstrap.commands", "bootstrap.program")
# And setup's steps, for the two heaviest packages setup uses (about a tenth of a setup's start): the purge
# step imports purge, and the verify step the kernel check, when they run. A setup with nothing to do, or one
# that stops at bad input, runs neither (docs/architecture.md, "How a command flows").
LATE_STEP_IMPORTS = {
    ("bootstrap.pipeline.setup.environment_steps", "bootstrap.purge.run"),
    ("bootstrap.pipeline.setup.verify_step", "bootstrap.kernels.verify"),
    ("bootstrap.pipeline.setup.run", "bootstrap.kernels.verify"),
}


@dataclass(frozen=True)
class Import:
    importer: str  # module name
    imported: str  # module name
    where: str  # path:line
    late: bool  # inside a function
    type_only: bool = False  # under `if TYPE_CHECKING:`


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    base = REPO.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def package_of(module: str, path: Path) -> str:
    """The innermost package: the module's own name for an __init__.py, else its parent."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports_in(
    node: ast.AST, late: bool, type_only: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, late, type_only
        else:
            test = child.test if isinstance(child, ast.If) else None
            checking = isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            inside = late or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield from _imports_in(child, inside, type_only or checking)


def imports() -> list[Import]:
    found: list[Import] = []
    for me, path in modules().items():
        for node, late, type_only in _imports_in(parsed(path.read_text()), False):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif node.level == 0 and node.module:
                # `from bootstrap.pipeline import llvm` imports the module bootstrap.pipeline.llvm.
                subs = [f"{node.module}.{alias.name}" for alias in node.names]
                names = [sub for sub in subs if is_module(sub)] or [node.module]
            else:
                names = []
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            found += [
                Import(me, name, where, late, type_only)
                for name in names
                if name.startswith("bootstrap.") and name != me
            ]
    return found


def top(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_package_is_placed_in_a_layer() -> None:
    unplaced = sorted({top(m) for m in modules()} - {*LAYERS, "bootstrap"})
    assert not unplaced, f"packages docs/architecture.md does not place in LAYERS: {unplaced}"


def test_the_root_package_imports_nothing() -> None:
    assert not [i for i in imports() if i.importer == "bootstrap"]


def test_every_import_points_down() -> None:
    rank = {name: n for n, name in enumerate(LAYERS)}
    wrong = [
        f"{i.where}: {i.importer} imports {i.imported}"
        for i in imports()
        if top(i.imported) != "bootstrap"
        and top(i.importer) != top(i.imported)
        and rank[top(i.imported)] > rank[top(i.importer)]
    ]
    assert not wrong, "imports that point up:\n" + "\n".join(wrong)


def node_in(package: str, module: str) -> str | None:
    """What `module` is inside `package`: itself (one of the package's own modules), the direct
    sub-package that holds it (a sub-package counts as one whole), or None (outside the package)."""
    if not module.startswith(package + ".") and module != package:
        return None
    rest = module[len(package) + 1 :].split(".") if module != package else []
    if not rest:
        return module
    child = f"{package}.{rest[0]}"
    return child if (REPO.joinpath(*child.split(".")) / "__init__.py").is_file() else module


def test_no_two_packages_import_each_other() -> None:
    """In every package, its own modules and its sub-packages (each taken whole) import one way only;
    at the top, that is the packages of LAYERS."""
    found, detail = [], []
    every = imports()
    for package in sorted({module_name(p.parent / "__init__.py") for p in PACKAGE.rglob("__init__.py")}):
        edges: dict[str, set[str]] = defaultdict(set)
        why: dict[tuple[str, str], str] = {}
        for i in every:
            a, b = node_in(package, i.importer), node_in(package, i.imported)
            if a and b and a != b and a != package:
                edges[a].add(b)
                why.setdefault((a, b), f"{i.where} ({i.importer} -> {i.imported})")
        for cycle in cycles(edges):
            found.append(cycle)
            detail += [why[(a, b)] for a in cycle for b in cycle if (a, b) in why]
    assert not found, f"package cycles {found}:\n" + "\n".join(detail)


def test_no_two_modules_import_each_other() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for i in imports():
        edges[i.importer].add(i.imported)
    assert not cycles(edges)


def test_imports_inside_functions_only_where_help_must_stay_fast() -> None:
    late = [
        f"{i.where}: {i.importer} imports {i.imported} inside a function"
        for i in imports()
        if i.late
        and not i.importer.startswith(LATE_IMPORTS_ALLOWED)
        and (i.importer, i.imported) not in LATE_STEP_IMPORTS
    ]
    assert not late, "\n".join(late)


def test_the_late_step_imports_are_still_late() -> None:
    """Each allowed late import of a step is where it is said to be, and nothing setup's api imports when it
    is imported (at the top of a module, not for the type checker only) imports those packages: else the
    late imports would save nothing."""
    every = imports()
    for importer, imported in LATE_STEP_IMPORTS:
        assert any(i.late and (i.importer, i.imported) == (importer, imported) for i in every), (importer, imported)
    at_import: dict[str, set[str]] = defaultdict(set)
    for i in every:
        if not i.late and not i.type_only:
            at_import[i.importer].add(i.imported)
    reached, todo = set(), ["bootstrap.pipeline.setup.api"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += at_import[module]
            # importing a module imports the packages above it
            todo += [".".join(module.split(".")[:n]) for n in range(2, module.count(".") + 1)]
    heavy = sorted(m for m in reached if m.startswith(("bootstrap.purge", "bootstrap.kernels.verify")))
    assert not heavy, heavy


def test_a_command_imports_no_other_command() -> None:
    wrong = []
    for i in imports():
        if top(i.importer) == "commands" and top(i.imported) == "commands":
            own = ".".join(i.importer.split(".")[:3])
            if not (
                i.imported == "bootstrap.commands.options"
                or i.imported.startswith(own)
                or i.importer == "bootstrap.commands"
            ):
                wrong.append(f"{i.where}: {i.importer} imports {i.imported}")
    assert not wrong, "\n".join(wrong)


def test_every_module_is_on_the_map() -> None:
    text = ARCHITECTURE.read_text()
    named = set(re.findall(r"\bbootstrap/[\w/]+(?:\.py)?", text))
    missing = []
    for path in modules().values():
        rel = str(path.relative_to(REPO))
        if rel not in named and not (path.name == "__init__.py" and str(path.parent.relative_to(REPO)) + "/" in named):
            missing.append(rel)
    assert not missing, "modules docs/architecture.md does not place:\n" + "\n".join(missing)


def test_every_module_has_one_row() -> None:
    """The module list names each module once: two rows for one module say two different jobs."""
    listed = ARCHITECTURE.read_text().split("## Every module", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(bootstrap/[^`]+)` \|", listed, re.M)
    assert not sorted({row for row in rows if rows.count(row) > 1})


def test_the_map_names_only_modules_that_exist() -> None:
    named = set(re.findall(r"\bbootstrap/[\w/]+(?:\.py)?(?![\w*])", ARCHITECTURE.read_text()))
    assert not [path for path in sorted(named) if not (REPO / path).exists()]


def test_the_map_states_the_layers() -> None:
    assert " < ".join(LAYERS) in ARCHITECTURE.read_text()


# bootstrap/pipeline/'s sub-packages, lowest first; bisect and testing stand side by side at the top.
PIPELINE_ORDER = ("host", "ccache", "distcc", "recipe", "llvm", "built", "setup", "bisect, testing")


def test_pipeline_sub_packages_import_in_their_order() -> None:
    rank = {name: n for n, group in enumerate(PIPELINE_ORDER) for name in group.split(", ")}
    wrong = []
    for i in imports():
        mine, theirs = i.importer.split("."), i.imported.split(".")
        if mine[1:2] == theirs[1:2] == ["pipeline"] and len(mine) > 2 and len(theirs) > 2 and mine[2] != theirs[2]:
            if rank[theirs[2]] >= rank[mine[2]]:
                wrong.append(f"{i.where}: {i.importer} imports {i.imported}")
    assert not wrong, "pipeline/ sub-packages importing up:\n" + "\n".join(wrong)
    assert " < ".join(PIPELINE_ORDER) in ARCHITECTURE.read_text()


# bootstrap/core/'s sub-packages, lowest first. The context (bootstrap/core/context.py) stands above them all.
CORE_ORDER = ("io", "process", "settings", "target")


def test_core_sub_packages_import_in_their_order() -> None:
    rank = {name: n for n, name in enumerate(CORE_ORDER)}
    wrong = []
    for i in imports():
        mine, theirs = i.importer.split("."), i.imported.split(".")
        if mine[1:2] == theirs[1:2] == ["core"] and len(mine) > 3 and mine[2] in rank:
            if theirs[2] == "context" or (len(theirs) > 3 and theirs[2] in rank and rank[theirs[2]] > rank[mine[2]]):
                wrong.append(f"{i.where}: {i.importer} imports {i.imported}")
    assert not wrong, "core/ sub-packages importing up:\n" + "\n".join(wrong)
    assert " < ".join(CORE_ORDER) in ARCHITECTURE.read_text()


def test_git_commands_are_run_only_under_git() -> None:
    """Every git command line is built in bootstrap/git/: the rest asks git/ for what it needs, it does
    not spell out `["git", ...]`."""
    found = []
    for path in sorted(p for p in PACKAGE.rglob("*.py") if (PACKAGE / "git") not in p.parents):
        for node in ast.walk(parsed(path.read_text())):
            if (
                isinstance(node, ast.List)
                and node.elts
                and isinstance(node.elts[0], ast.Constant)
                and node.elts[0].value == "git"
            ):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found, "\n".join(found)


def test_setup_is_reached_through_its_api() -> None:
    """What stands above setup (the commands, bisect, the IR tools) uses bootstrap/pipeline/setup/api.py
    alone: setup's other modules can change without them; a finished build is read from pipeline/built/."""
    wrong = [
        f"{i.where}: {i.importer} imports {i.imported}"
        for i in imports()
        if i.imported.startswith("bootstrap.pipeline.setup.")
        and not i.importer.startswith("bootstrap.pipeline.setup.")
        and i.imported != "bootstrap.pipeline.setup.api"
    ]
    assert not wrong, "\n".join(wrong)


# Modules split along their seams before they pass this, functions before they pass 60 lines (docstring
# included). The one exception: the repro runner is the body every repro.py carries whole, so that the
# repro runs alone, with no tritondev on the machine.
MODULE_LINES, FUNCTION_LINES = 400, 60
WHOLE_BY_DESIGN = {"bootstrap/core/target/scripts/tritondev_repro_runner.py"}


def test_modules_and_functions_stay_small() -> None:
    long_modules, long_functions = [], []
    for path in sorted((REPO / "bootstrap").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MODULE_LINES and rel not in WHOLE_BY_DESIGN:
            long_modules.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(parsed(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LINES:
                    long_functions.append(f"{rel}:{node.lineno} {node.name}: {lines} lines")
    assert not long_modules and not long_functions, "\n".join(long_modules + long_functions)
