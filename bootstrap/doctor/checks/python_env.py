"""Python and environment: the interpreter, its venv, Python.h, a C compiler, environment traps."""

from __future__ import annotations

import os
import shutil

from bootstrap.doctor.facts import Facts, Skip
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check

# Triton supports these Python versions in its wheels (3.10 .. 3.14 at the time of writing).
MIN_PYTHON = (3, 10)


@check("python.interpreter", "the target Python interpreter")
def interpreter(facts: Facts) -> CheckOutcome:
    try:
        target = facts.target()
    except Skip as exc:
        return error(exc.reason, exc.fix or "pass --python PATH, or run `tritondev setup` to create the workspace venv")
    version = tuple(int(p) for p in target.version.split("."))
    where = f"{target.executable} (Python {target.version}, chosen by {target.origin})"
    if version[:2] < MIN_PYTHON:
        return error(
            f"Python {target.version} is too old for current Triton: {target.executable}",
            f"use Python >= {MIN_PYTHON[0]}.{MIN_PYTHON[1]}: pass --python with a newer interpreter",
        )
    return ok(where)


@check("python.venv", "the target is a virtual or conda environment")
def venv(facts: Facts) -> CheckOutcome:
    target = facts.target()
    if target.is_venv:
        kind = "conda env" if (target.prefix / "conda-meta").is_dir() else "venv"
        return ok(f"{kind} at {target.prefix}")
    venv_dir = facts.ctx.workspace.venv
    return warn(
        f"{target.executable} is a system interpreter, not a venv: installs would change the system Python",
        f"tritondev setup builds Triton into {venv_dir}; every command uses that venv once it exists, without "
        f"--python (or create it yourself: python3 -m venv {venv_dir})",
    )


@check("python.headers", "Python.h for the target interpreter")
def headers(facts: Facts) -> CheckOutcome:
    target = facts.target()
    include = target.include
    if (include / "Python.h").is_file():
        return ok(f"{include}/Python.h")
    major_minor = ".".join(target.version.split(".")[:2])
    # In a venv sysconfig names the base interpreter's include folder, owned by python3.X-dev.
    return error(
        f"Python.h not found in {include}: Triton compiles its launcher with it at the first kernel launch",
        f"apt-get install python{major_minor}-dev  (Fedora: dnf install python{major_minor.replace('.', '')}-devel)",
    )


@check("python.c-compiler", "a C compiler for Triton's runtime launcher")
def c_compiler(facts: Facts) -> CheckOutcome:
    # Triton's build_extension uses $CC, else the first of clang/gcc/cc on PATH.
    cc = facts.environ.get("CC")
    if cc:
        found = shutil.which(cc, path=facts.environ.get("PATH", ""))
        if found is None:
            return error(f"CC={cc} is not an executable on PATH", "unset CC, or point it at a C compiler")
        return ok(f"CC={found}")
    for name in ("clang", "gcc", "cc"):
        found = shutil.which(name, path=facts.environ.get("PATH", ""))
        if found:
            return ok(found)
    return error(
        "no C compiler (clang, gcc, cc): Triton cannot build its launcher at the first kernel launch",
        "apt-get install gcc",
    )


@check("python.env-traps", "environment variables that break builds or imports")
def env_traps(facts: Facts) -> CheckOutcome:
    env = facts.environ
    problems: list[str] = []
    fixes: list[str] = []
    if env.get("PYTHONSAFEPATH"):
        problems.append("PYTHONSAFEPATH is set: Triton's Makefile and build scripts that import from the cwd break")
        fixes.append("unset PYTHONSAFEPATH")
    if env.get("PYTHONHOME"):
        problems.append(f"PYTHONHOME={env['PYTHONHOME']} overrides where every interpreter finds its stdlib")
        fixes.append("unset PYTHONHOME")
    if env.get("PYTHONNOUSERSITE") is None and env.get("PYTHONUSERBASE"):
        problems.append(f"PYTHONUSERBASE={env['PYTHONUSERBASE']}: user site packages may shadow the venv's")
    if env.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        problems.append("CUDA_VISIBLE_DEVICES hides every GPU")
        fixes.append("unset CUDA_VISIBLE_DEVICES")
    for entry in env.get("PYTHONPATH", "").split(os.pathsep):
        if entry and not os.path.isdir(entry):
            problems.append(f"PYTHONPATH entry {entry} does not exist")
    for var in ("LLVM_SYSPATH", "LLVM_INCLUDE_DIRS", "LLVM_LIBRARY_DIR"):
        value = env.get(var)
        if value and not os.path.isabs(value):
            problems.append(f"{var}={value} is relative: Triton's build needs absolute LLVM paths (triton#4464)")
            fixes.append(f"export {var}=$(realpath {value})")
    if not problems:
        return ok("no PYTHONSAFEPATH, PYTHONHOME or other traps set")
    fix = "; ".join(fixes) if fixes else "review the variables above"
    return warn(problems[0], fix, *problems[1:])
