"""How far setup's command context travels: followed through the code from `run_setup`'s `ctx`, it enters
at most MAX_FILES files and moves back up the layers at most MAX_UPS times (docs/architecture.md, "The
command context stops at the driver").

What is followed, read with ast (no import, no process):

- The context itself: the parameter that receives it, a name bound to a context made from it
  (`ctx.with_runner(...)`, `dataclasses.replace(ctx, ...)`, a function annotated to return an
  AppContext, `with private_cache(ctx) as scoped`), an object that holds it (a field or attribute set
  from it: its methods see it as `self.<field>`, and so does every function taking such an object, by
  its annotation), and a nested function or lambda that closes over it.
- A part of it (`ctx.settings`, `ctx.runner.logging_to(None)`, `ctx.target()`, or a name bound to one):
  the function it is handed to is entered, one hop; a part is a plain value, not followed further.

A file is entered when one of its functions receives the context or a part of it. A move back up is the
context (or a part) handed to a function of a module that imports, directly or not, the module it comes
from: against the import direction, which only an object holding it or a callback allows.

Run `python -m tests.unit.docs.test_context_reach` for the figures and every file and move.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
START = ("bootstrap.pipeline.setup.run", "run_setup", "ctx")
MAX_FILES = 25
MAX_UPS = 5
CONTEXT_TYPE = "AppContext"


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    names: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # local name -> (module, attribute)
    imports: set[str] = field(default_factory=set)  # modules it imports


class Code:
    """The modules of one package tree, their definitions and imports."""

    def __init__(self, root: Path, package: str = "bootstrap") -> None:
        self.modules: dict[str, Module] = {}
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            self.modules[name] = Module(name, path.relative_to(root), parsed(path.read_text()))
        for module in self.modules.values():
            self._read(module, package)

    def _read(self, module: Module, package: str) -> None:
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(package):
                for alias in node.names:
                    whole = f"{node.module}.{alias.name}"
                    target = (whole, None) if whole in self.modules else (str(node.module), alias.name)
                    module.names[alias.asname or alias.name] = target
                    module.imports.add(target[0])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(package):
                        module.imports.add(alias.name)
                        if alias.asname:
                            module.names[alias.asname] = (alias.name, None)
        for node in module.tree.body:
            if isinstance(node, ast.FunctionDef):
                module.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                module.classes[node.name] = node

    def define(self, module: str, name: str, depth: int = 0) -> tuple[str, ast.FunctionDef | ast.ClassDef] | None:
        """Where `name`, as `module` sees it, is defined (through re-exports)."""
        found = self.modules.get(module)
        if found is None or depth > 8:
            return None
        if name in found.functions:
            return module, found.functions[name]
        if name in found.classes:
            return module, found.classes[name]
        target = found.names.get(name)
        return self.define(target[0], target[1], depth + 1) if target and target[1] else None

    def bases(self, module: str, cls: ast.ClassDef) -> Iterator[tuple[str, ast.ClassDef]]:
        yield module, cls
        for base in cls.bases:
            found = self.define(module, base.id) if isinstance(base, ast.Name) else None
            if found is not None and isinstance(found[1], ast.ClassDef):
                yield from self.bases(found[0], found[1])

    def method(self, module: str, cls: ast.ClassDef, name: str) -> tuple[str, ast.FunctionDef] | None:
        for where, klass in self.bases(module, cls):
            for node in klass.body:
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    return where, node
        return None

    @functools.cache  # noqa: B019 - one Code per measure
    def imported_by(self, module: str) -> frozenset[str]:
        """Every module `module` imports, directly or not."""
        seen: set[str] = set()
        todo = [module]
        while todo:
            for other in self.modules[todo.pop()].imports:
                if other in self.modules and other not in seen:
                    seen.add(other)
                    todo.append(other)
        return frozenset(seen)


@dataclass(frozen=True)
class Move:
    source: str  # module the context (or a part) comes from
    target: str  # module it enters
    function: str  # the function (or class) it is handed to
    part: bool  # a part of the context, not the context itself

    @property
    def label(self) -> str:
        return f"{self.source} -> {self.target}.{self.function}" + (" (a part)" if self.part else "")


@dataclass
class Reach:
    files: set[Path] = field(default_factory=set)
    moves: set[Move] = field(default_factory=set)
    ups: set[Move] = field(default_factory=set)


class Follow:
    """The context followed from one function's parameter."""

    def __init__(self, code: Code) -> None:
        self.code, self.reach = code, Reach()
        self.seen: set[tuple[str, int, frozenset[str]]] = set()
        self.held: set[tuple[str, str]] = set()  # (module, class) holding the context

    # -- what an expression is ------------------------------------------------------------------------
    @staticmethod
    def _dotted(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            inner = Follow._dotted(node.value)
            return f"{inner}.{node.attr}" if inner else None
        return None

    def is_context(self, node: ast.expr, names: set[str]) -> bool:
        return self._dotted(node) in names

    def is_part(self, node: ast.expr, names: set[str], parts: set[str]) -> bool:
        """Rooted at the context (`ctx.settings`, `ctx.runner.quiet(...)`), or a name bound to a part."""
        while True:
            if isinstance(node, ast.Name):
                return node.id in parts
            if isinstance(node, ast.Call):
                node = node.func
            elif isinstance(node, (ast.Attribute, ast.Subscript)):
                node = node.value
            else:
                return False
            if self.is_context(node, names):
                return True

    def _closes_over(self, node: ast.expr, names: set[str]) -> bool:
        """A lambda (or a nested function, by name) that uses the context."""
        return isinstance(node, ast.Lambda) and any(
            self.is_context(n, names) for n in ast.walk(node.body) if isinstance(n, (ast.Name, ast.Attribute))
        )

    # -- calls ------------------------------------------------------------------------------------------
    def callee(
        self, module: str, func: ast.expr, cls: tuple[str, ast.ClassDef] | None
    ) -> tuple[str, ast.FunctionDef | ast.ClassDef] | None:
        mod = self.code.modules[module]
        if isinstance(func, ast.Name):
            return self.code.define(module, func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            target = mod.names.get(func.value.id)
            if target is not None and target[1] is None:
                return self.code.define(target[0], func.attr)
            if func.value.id == "self" and cls is not None:
                return self.code.method(cls[0], cls[1], func.attr)
        return None

    def returns_context(self, found: tuple[str, ast.FunctionDef | ast.ClassDef] | None, call: ast.Call) -> bool:
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("replace", "with_runner"):
            return True
        node = found[1] if found else None
        return (
            isinstance(node, ast.FunctionDef) and node.returns is not None and CONTEXT_TYPE in ast.unparse(node.returns)
        )

    # -- one function -----------------------------------------------------------------------------------
    def function(
        self, module: str, node: ast.FunctionDef, names: set[str], cls: tuple[str, ast.ClassDef] | None = None
    ) -> None:
        key = (module, node.lineno, frozenset(names))
        if key in self.seen:
            return
        self.seen.add(key)
        self.reach.files.add(self.code.modules[module].path)
        names, parts = set(names), set[str]()
        nested = {
            n.name
            for n in ast.walk(node)
            if isinstance(n, ast.FunctionDef)
            and n is not node
            and any(self.is_context(x, names) for x in ast.walk(n) if isinstance(x, (ast.Name, ast.Attribute)))
        }
        for sub in ast.walk(node):
            self._bind(module, sub, names, parts, cls)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self._call(module, sub, names, parts, nested, cls)

    def _bind(
        self, module: str, sub: ast.AST, names: set[str], parts: set[str], cls: tuple[str, ast.ClassDef] | None
    ) -> None:
        """Names bound to a context made from it, or to a part of it."""
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(sub, ast.Assign):
            for target in sub.targets:
                if isinstance(target, ast.Tuple) and isinstance(sub.value, ast.Tuple):
                    pairs += list(zip(target.elts, sub.value.elts, strict=False))
                else:
                    pairs.append((target, sub.value))
        elif isinstance(sub, (ast.With, ast.AsyncWith)):
            pairs += [(i.optional_vars, i.context_expr) for i in sub.items if i.optional_vars is not None]
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                continue
            if (
                isinstance(value, ast.Call)
                and (
                    any(self.is_context(a, names) for a in [*value.args, *(k.value for k in value.keywords)])
                    or (isinstance(value.func, ast.Attribute) and self.is_context(value.func.value, names))
                )
                and self.returns_context(self.callee(module, value.func, cls), value)
            ):
                names.add(target.id)
            elif self.is_context(value, names):
                names.add(target.id)
            elif self.is_part(value, names, parts):
                parts.add(target.id)

    def _call(
        self,
        module: str,
        call: ast.Call,
        names: set[str],
        parts: set[str],
        nested: set[str],
        cls: tuple[str, ast.ClassDef] | None,
    ) -> None:
        args = list(call.args)
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        whole = [
            i
            for i, a in enumerate(args)
            if self.is_context(a, names) or self._closes_over(a, names) or (isinstance(a, ast.Name) and a.id in nested)
        ]
        whole_kw = {k for k, v in keywords.items() if self.is_context(v, names) or self._closes_over(v, names)}
        part = any(self.is_part(a, names, parts) for a in [*args, *keywords.values()])
        if not (whole or whole_kw or part):
            return
        found = self.callee(module, call.func, cls)
        if found is None:
            return
        where, node = found
        self._moved(Move(module, where, node.name, not (whole or whole_kw)))
        if not (whole or whole_kw):
            return
        if isinstance(node, ast.ClassDef):
            self._into_class(where, node, whole, whole_kw)
            return
        params = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        if params[:1] == ["self"] and isinstance(call.func, ast.Attribute):
            params = params[1:]
        receiving = {params[i] for i in whole if i < len(params)} | (whole_kw & set(params))
        if receiving:
            self.function(where, node, receiving, cls if where == (cls[0] if cls else None) else None)

    def _into_class(self, module: str, cls: ast.ClassDef, whole: list[int], whole_kw: set[str]) -> None:
        init = self.code.method(module, cls, "__init__")
        if init is None:  # a dataclass: its fields, in order, from the base classes first
            fields = [
                n.target.id
                for _, k in reversed(list(self.code.bases(module, cls)))
                for n in k.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
            ]
            for name in {fields[i] for i in whole if i < len(fields)} | whole_kw:
                self._hold(module, cls, name)
            return
        params = [a.arg for a in init[1].args.args][1:]
        receiving = {params[i] for i in whole if i < len(params)} | whole_kw
        for node in ast.walk(init[1]):
            if isinstance(node, ast.Assign):
                for target, value in zip(
                    node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else node.targets,
                    value_list(node.value),
                    strict=False,
                ):
                    if isinstance(target, ast.Attribute) and isinstance(value, ast.Name) and value.id in receiving:
                        self._hold(module, cls, target.attr)

    def _hold(self, module: str, cls: ast.ClassDef, name: str) -> None:
        """Class `cls` holds the context in `name`: the class that declares the field, its methods (and its
        subclasses'), and every function that takes such an object, see it."""
        for where, klass in self.code.bases(module, cls):
            if any(
                isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name
                for n in klass.body
            ):
                module, cls = where, klass
        if (module, cls.name) in self.held:
            return
        self.held.add((module, cls.name))
        kinds = set()
        for where, mod in self.code.modules.items():
            for klass in mod.classes.values():
                if any(m == module and k.name == cls.name for m, k in self.code.bases(where, klass)):
                    kinds.add(klass.name)
                    for node in klass.body:
                        if isinstance(node, ast.FunctionDef):
                            self._moved(Move(module, where, f"{klass.name}.{node.name}", False))
                            self.function(where, node, {f"self.{name}"}, (where, klass))
        for where, mod in self.code.modules.items():
            for function in mod.functions.values():
                for arg in function.args.args:
                    if arg.annotation is not None and ast.unparse(arg.annotation).strip("'\"") in kinds:
                        self._moved(Move(module, where, function.name, False))
                        self.function(where, function, {f"{arg.arg}.{name}"})

    def _moved(self, move: Move) -> None:
        self.reach.moves.add(move)
        self.reach.files.add(self.code.modules[move.target].path)
        if move.source != move.target and move.source in self.code.imported_by(move.target):
            self.reach.ups.add(move)


def value_list(value: ast.expr) -> list[ast.expr]:
    return list(value.elts) if isinstance(value, ast.Tuple) else [value]


def measure(root: Path = REPO, start: tuple[str, str, str] = START) -> Reach:
    code = Code(root)
    module, function, parameter = start
    follow = Follow(code)
    follow.function(module, code.modules[module].functions[function], {parameter})
    return follow.reach


def test_setups_context_stays_near_the_top() -> None:
    reach = measure()
    files = sorted(str(f) for f in reach.files)
    assert len(reach.files) <= MAX_FILES, f"setup's context enters {len(files)} files:\n" + "\n".join(files)
    ups = sorted(m.label for m in reach.ups)
    assert len(reach.ups) <= MAX_UPS, f"{len(ups)} moves back up:\n" + "\n".join(ups)


def test_the_plan_takes_facts_alone() -> None:
    """The model: the plan's facts reach the recipe below it and never come back up."""
    reach = measure(start=("bootstrap.pipeline.setup.plan", "plan_setup", "facts"))
    assert reach.files and not reach.ups


SAMPLE = {
    "pkg/__init__.py": "",
    "pkg/core.py": "class AppContext:\n    settings: int\n",
    "pkg/low/__init__.py": "",
    "pkg/low/holder.py": (
        "from dataclasses import dataclass\nfrom pkg.core import AppContext\n\n"
        "@dataclass\nclass Holder:\n    ctx: AppContext\n"
    ),
    "pkg/low/values.py": "def use(settings):\n    return settings\n",
    "pkg/mid.py": ("from pkg.low.holder import Holder\n\ndef handle(run: Holder):\n    return run.ctx\n"),
    "pkg/top.py": (
        "from pkg.low.holder import Holder\nfrom pkg.low.values import use\n\n"
        "def start(ctx):\n    use(ctx.settings)\n    return Holder(ctx)\n"
    ),
}


def test_the_measure_sees_parts_holders_and_the_way_back_up(tmp_path: Path) -> None:
    """A context stored in a low module's object and taken out by a module above it is a move back up; a
    part handed down enters its file, one hop."""
    for name, text in SAMPLE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    code = Code(tmp_path, "pkg")
    follow = Follow(code)
    follow.function("pkg.top", code.modules["pkg.top"].functions["start"], {"ctx"})
    reach = follow.reach
    assert {str(f) for f in reach.files} == {"pkg/top.py", "pkg/low/values.py", "pkg/low/holder.py", "pkg/mid.py"}
    assert [m.label for m in reach.ups] == ["pkg.low.holder -> pkg.mid.handle"]
    assert Move("pkg.top", "pkg.low.values", "use", True) in reach.moves


if __name__ == "__main__":
    found = measure(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else REPO)
    print(
        f"setup's context enters {len(found.files)} files (at most {MAX_FILES}), "
        f"{len(found.ups)} moves back up (at most {MAX_UPS})"
    )
    for path in sorted(str(f) for f in found.files):
        print(f"  {path}")
    for move in sorted(m.label for m in found.ups):
        print(f"  up: {move}")
