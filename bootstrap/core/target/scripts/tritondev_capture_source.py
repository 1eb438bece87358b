# mypy: ignore-errors
"""A kernel's source made standalone: the @triton.jit function, the helpers and globals it refers to.

Part of the capture hook (tritondev_capture.py). Given the live JITFunction (or the interpreter's
InterpretedFunction), every name the kernel's body reads is resolved where the kernel was defined:

- a name bound by an import of the kernel's own module from triton, torch, numpy or the standard library
  is imported the same way (Inductor's `from torch._inductor.runtime import triton_helpers`, `tl_math`);
- a @triton.jit helper defined in the user's code is copied, recursively; one from triton or torch is
  imported from its module;
- a module of triton/torch/numpy/the stdlib is imported; a tl.constexpr, number, string or tl dtype
  global is written as an assignment;
- anything else is named in the problems list (and kernel.py says so at its top).

Decorators other than @triton.jit (triton.autotune, triton.heuristics, Inductor's
@triton_heuristics.pointwise(...)) are left out: a repro launches the chosen configuration directly.
"""

import ast
import builtins
import inspect
import os
import re
import sys
import textwrap
import types

PORTABLE = {"triton", "torch", "numpy"}
_DEF = re.compile(r"^def\s+\w+\s*\(", re.MULTILINE)


def _portable(module_name):
    top = (module_name or "").split(".")[0]
    return top in PORTABLE or top in getattr(sys, "stdlib_module_names", ())


def _python_fn(fn):
    return getattr(fn, "fn", fn)


def _is_kernel(value):
    cls = type(value).__name__
    return cls in ("JITFunction", "InterpretedFunction") or (
        hasattr(value, "fn") and hasattr(value, "arg_names") and hasattr(value, "run")
    )


def _def_source(fn):
    """The function's `def ...` without its decorators, as Triton itself reads it."""
    text = getattr(fn, "src", None)
    if not isinstance(text, str):
        text = textwrap.dedent(inspect.getsource(_python_fn(fn)))
    match = _DEF.search(text)
    return text[match.start() :] if match else text


def _decorator(fn, names):
    options = []
    skip = getattr(fn, "do_not_specialize", None) or []
    shown = [names[i] if isinstance(i, int) and i < len(names) else i for i in skip]
    if shown:
        options.append(f"do_not_specialize={shown!r}")
    if getattr(fn, "noinline", None):
        options.append("noinline=True")
    kwargs = getattr(fn, "kwargs", None) or {}  # the interpreter keeps jit's keyword arguments
    if kwargs.get("noinline") and "noinline=True" not in options:
        options.append("noinline=True")
    return f"@triton.jit({', '.join(options)})" if options else "@triton.jit"


def _free_names(text):
    tree = ast.parse(text)
    function = tree.body[0]
    bound = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    loaded = []
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not function:
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
    seen = []
    for name in loaded:
        if name not in bound and name not in seen:
            seen.append(name)
    return seen


def _module_imports(path, cache):
    """Top-level imports of a file: bound name -> (the import line for that name alone, module imported)."""
    if path in cache:
        return cache[path]
    found = {}
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError, TypeError):
        tree = ast.Module(body=[], type_ignores=[])
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                line = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                found[bound] = (line, alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                bound = alias.asname or alias.name
                line = f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                found[bound] = (line, node.module)
    cache[path] = found
    return found


class _Extractor:
    def __init__(self):
        self.imports = {"triton": "import triton", "tl": "import triton.language as tl"}
        self.assignments = {}
        self.functions = {}  # name -> (python function, text)
        self.problems = []
        self.files = {}

    def add_function(self, fn, as_name=None):
        python_fn = _python_fn(fn)
        name = as_name or python_fn.__name__
        if name in self.functions:
            if self.functions[name][0] is not python_fn:
                self.problems.append(f"two functions are named {name}; only the first is in kernel.py")
            return
        text = _def_source(fn)
        if as_name and as_name != python_fn.__name__:
            text = re.sub(r"^def\s+\w+", f"def {as_name}", text, count=1)
        names = list(getattr(fn, "arg_names", None) or inspect.signature(python_fn).parameters)
        self.functions[name] = (python_fn, _decorator(fn, names) + "\n" + text.rstrip() + "\n")
        for free in _free_names(text):
            self.resolve(free, python_fn)

    def resolve(self, name, python_fn):
        if name in self.imports or name in self.assignments or name in self.functions:
            return
        path = getattr(python_fn.__code__, "co_filename", None)
        imported = _module_imports(path, self.files).get(name) if path else None
        if imported and _portable(imported[1]):
            self.imports[name] = imported[0]
            return
        scope = dict(python_fn.__globals__)
        if python_fn.__closure__:
            cells = python_fn.__closure__  # no zip(strict=): the target may run Python 3.9
            scope.update({n: cells[i].cell_contents for i, n in enumerate(python_fn.__code__.co_freevars)})
        if name not in scope:
            if not hasattr(builtins, name):
                self.problems.append(f"{name} is not defined where {python_fn.__name__} is")
            return
        self.bind(name, scope[name], python_fn)

    def bind(self, name, value, python_fn):
        if isinstance(value, types.ModuleType):
            if _portable(value.__name__):
                self.imports[name] = (
                    f"import {value.__name__} as {name}" if name != value.__name__ else f"import {value.__name__}"
                )
            else:
                self.problems.append(f"{name} is the module {value.__name__} (not triton or torch): not copied")
            return
        if _is_kernel(value):
            module = getattr(_python_fn(value), "__module__", "")
            if _portable(module):
                self.imports[name] = f"from {module} import {_python_fn(value).__name__} as {name}"
            else:
                self.add_function(value, as_name=name)
            return
        literal = _literal(value)
        if literal is not None:
            self.assignments[name] = f"{name} = {literal}"
            return
        module = getattr(value, "__module__", "") or ""
        if callable(value) and _portable(module) and hasattr(value, "__qualname__") and "." not in value.__qualname__:
            self.imports[name] = f"from {module} import {value.__qualname__} as {name}"
            return
        self.problems.append(f"{name} ({type(value).__name__}) is not a kernel, module or constant: not copied")

    def text(self, kernel_name, origin):
        head = [f'"""{kernel_name}, made standalone by `tritondev repro capture` from {origin}.']
        if self.problems:
            head.append("")
            head.append("Not everything the kernel refers to could be copied:")
            head.extend(f"- {p}" for p in self.problems)
        head.append('"""')
        parts = ["\n".join(head), "\n".join(sorted(set(self.imports.values())))]
        if self.assignments:
            parts.append("\n".join(self.assignments.values()))
        order = [n for n in self.functions if n != kernel_name] + [kernel_name]
        parts.extend(self.functions[n][1] for n in order if n in self.functions)
        return "\n\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def _literal(value):
    kind = type(value).__name__
    if kind == "constexpr" and type(value).__module__.startswith("triton"):
        inner = _literal(getattr(value, "value", None))
        return f"tl.constexpr({inner})" if inner is not None else None
    if kind == "dtype" and type(value).__module__.startswith("triton"):
        return f"tl.dtype({str(value)!r})"
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        finite = value == value and value not in (float("inf"), float("-inf"))
        return repr(value) if finite else f"float({str(value)!r})"
    return None


def standalone(fn):
    """(kernel.py's text, problems) for a JITFunction or InterpretedFunction."""
    python_fn = _python_fn(fn)
    extractor = _Extractor()
    extractor.add_function(fn)
    try:
        where = f"{os.path.basename(inspect.getsourcefile(python_fn) or '?')}:{inspect.getsourcelines(python_fn)[1]}"
    except (OSError, TypeError):
        where = python_fn.__module__
    return extractor.text(python_fn.__name__, where), list(extractor.problems)
