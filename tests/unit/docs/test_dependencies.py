"""Every package bootstrap/ imports is declared in pyproject.toml, and only public modules of them are used."""

from __future__ import annotations

import ast
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]


def _declared() -> dict[str, Requirement]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return {canonicalize_name(r.name): r for r in map(Requirement, project["dependencies"])}


def _is_inside_script(path: Path) -> bool:
    return path.parent.name == "scripts" and path.name.startswith("tritondev_")


def _imports(inside: bool = False) -> dict[str, set[str]]:
    """Dotted module names imported by tritondev's own code, with the files importing each.

    The scripts bootstrap/core/target/scripts/tritondev_*.py run inside the *target* interpreter (its torch, triton,
    numpy), never in tritondev's: they are not its dependencies (inside=True: only theirs)."""
    found: dict[str, set[str]] = {}
    for path in (REPO / "bootstrap").rglob("*.py"):
        if _is_inside_script(path) != inside:
            continue
        for node in ast.walk(parsed(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name, set()).add(str(path.relative_to(REPO)))
    return found


# The standard library of every Python tritondev runs on: tomllib came with 3.11 (imported only there).
STDLIB = sys.stdlib_module_names | {"tomllib"}


def _third_party(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    return {
        m: where for m, where in modules.items() if m.split(".")[0] not in STDLIB and m.split(".")[0] != "bootstrap"
    }


def test_every_imported_package_is_declared() -> None:
    declared = _declared()
    owners = packages_distributions()
    missing = {}
    for module, where in _third_party(_imports()).items():
        top = module.split(".")[0]
        dists = {canonicalize_name(d) for d in owners.get(top, [top])}
        if top == "tomli":
            continue  # Python 3.10's stand-in for tomllib, declared with its marker
        if not dists & set(declared):
            missing[module] = sorted(where)
    assert missing == {}, f"imported but not declared in pyproject.toml: {missing}"
    assert "tomli" in declared and str(declared["tomli"].marker) == 'python_version < "3.11"'


# The one exception, and why: Typer 0.29 coerces every option through Pydantic, which costs each start
# of tritondev about 0.15 s; bootstrap/commands/coercion.py answers plain values with Typer's own pieces
# (pinned <0.30, tests/unit/commands/test_coercion.py compares it with Typer's coercion) and leaves
# Typer's coercion in place where those are absent.
PRIVATE_ALLOWED = {
    "typer._coercion": ["bootstrap/commands/coercion.py"],
    "typer._param_types": ["bootstrap/commands/coercion.py"],
}


def test_only_public_modules_of_other_packages() -> None:
    private = {
        m: sorted(w) for m, w in _third_party(_imports()).items() if any(part.startswith("_") for part in m.split("."))
    }
    assert private == PRIVATE_ALLOWED, f"private modules of other packages: {private}"


def test_the_packages_whose_behaviour_the_tests_check_have_a_tested_range() -> None:
    """--help and the option parser's errors are Typer's, drawn by rich: a release outside the range the
    tests ran on may change them, so pip must not pick one."""
    declared = _declared()
    from importlib.metadata import version

    for name in ("typer", "rich", "pip-api"):
        spec = declared[name].specifier
        assert any(s.operator == "<" for s in spec) and any(s.operator == ">=" for s in spec), (name, spec)
        assert spec.contains(version(name)), f"the tests run on {name} {version(name)}, outside {spec}"


# Declared packages that tritondev lends to a script inside the target (it hands the script their folder).
LENT = {"pip-api": ("pip_api", "bootstrap/core/target/scripts/tritondev_requirements.py")}


def test_every_declared_package_is_used() -> None:
    """Nothing is declared that nothing uses: each is imported by tritondev, or lent to the one script
    inside the target that imports it."""
    owners = packages_distributions()
    used = {
        canonicalize_name(d)
        for module in _third_party(_imports())
        for d in owners.get(module.split(".")[0], [module.split(".")[0]])
    }
    inside = _imports(inside=True)
    for name, (module, script) in LENT.items():
        assert script in inside.get(module, set()), f"{name} is declared for {script}, which does not import it"
        used.add(canonicalize_name(name))
    assert set(_declared()) - used == set(), "declared in pyproject.toml but never imported"


def test_pip_api_never_runs_in_tritondevs_own_process() -> None:
    """Importing pip_api runs `python -m pip --version` in a process of its own (0.0.35 reads pip's version
    at import), and only bootstrap/core/process/runner.py starts processes in tritondev: no module of tritondev's own
    process imports it, at the top or inside a function; only the script run in the target does."""
    assert "pip_api" not in _imports()
    assert not any(m.startswith("pip_api.") for m in _imports())
