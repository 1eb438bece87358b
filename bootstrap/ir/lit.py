"""Triton's lit tests, run the way its Makefile and AGENTS.md run them.

Everything: `ninja -C <build> check-triton-lit-tests` (the Makefile's test-lit; it builds triton-opt
first). Some: `ninja -C <build> triton-opt` (the Makefile's triton-opt target), then
`lit -v <build>/test/<path>` for a file or folder
under test/ (lit finds the build's lit.site.cfg.py above the path and maps it back to the source),
or `lit -v <build>/test --filter <regex>` for anything else. lit is the one the build was configured
with (setup.py passes the pip-installed lit as LLVM_EXTERNAL_LIT), else the one next to the target
Python; FileCheck is the one of the LLVM build, as the generated lit.site.cfg.py says. Counts come
from lit's own xUnit report (bootstrap.pipeline.testing.reports), as for the Makefile's test-lit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.pipeline.built.state import read_state
from bootstrap.pipeline.built.triton_build import TritonBuild, find_build, runtime_env
from bootstrap.pipeline.host.buildtree import read_cmake_cache
from bootstrap.pipeline.testing.run import TestPlan, TestReport, environment, run_plan, stream_to
from bootstrap.pipeline.testing.targets import TestStep

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

CHECK_TARGET = "check-triton-lit-tests"


def lit_program(build_dir: Path, python: Path | None) -> str:
    """The lit of the build (LLVM_EXTERNAL_LIT in its CMakeCache.txt), else the one next to the target
    Python, else `lit` on PATH."""
    configured = read_cmake_cache(build_dir / "CMakeCache.txt").get("LLVM_EXTERNAL_LIT", "")
    if configured and Path(configured).is_file():
        return configured
    if python is not None and (python.parent / "lit").is_file():
        return str(python.parent / "lit")
    return "lit"


def test_path(source_tests: Path, pattern: str, cwd: Path | None = None) -> Path | None:
    """PATTERN as an existing file or folder under test/, relative to it: given relative to test/
    (`TritonGPU/coalesce.mlir`), to the checkout (`test/TritonGPU/coalesce.mlir`), to `cwd`, or absolute.
    None when it names nothing there (links resolved first, so none leads out of test/)."""
    text = pattern.strip()
    if not text:
        return None
    given = Path(text)
    bases = [Path("/")] if given.is_absolute() else [source_tests, source_tests.parent, *([cwd] if cwd else [])]
    root = source_tests.resolve()
    for base in bases:
        candidate = (base / given).resolve()
        if candidate.exists() and candidate.is_relative_to(root):
            return candidate.relative_to(root)
    return None


def lit_arguments(source_tests: Path, build_dir: Path, pattern: str, cwd: Path | None = None) -> list[str]:
    """What lit runs for PATTERN: a test file or folder under test/ (test_path), else a --filter regex."""
    relative = test_path(source_tests, pattern, cwd)
    if relative is not None:
        return ["-v", str(build_dir / "test" / relative) if relative.parts else str(build_dir / "test")]
    return ["-v", str(build_dir / "test"), "--filter", pattern]


def lit_plan(build: TritonBuild, python: Path | None, pattern: str, cwd: Path | None = None) -> TestPlan:
    """`test lit PATTERN`: the Makefile's `triton-opt` target (ninja -C BUILD triton-opt), then lit on
    the tests PATTERN names; lit's counts are read as the check target's are."""
    tests = build.triton_src / "test"
    argv = (lit_program(build.build_dir, python), *lit_arguments(tests, build.build_dir, pattern, cwd))
    steps = (
        TestStep("ninja", ("ninja", "-C", str(build.build_dir), "triton-opt"), build.build_dir),
        TestStep("lit", argv, build.build_dir),
    )
    return TestPlan("lit", None, steps, False, build.triton_src, build.build_dir, python or Path("python"))


def run_lit(ctx: AppContext, pattern: str) -> TestReport:
    """The plan under the workspace lock taken shared, as every test target (two at once, none during a
    build), with `tritondev env`'s variables and those of the Triton build (ASAN's for a sanitized one)."""
    build = find_build(ctx.workspace.root, ctx.workspace.state)
    state = read_state(ctx.workspace.state)
    python = state.python if state else None
    plan = lit_plan(build, python, pattern, Path.cwd())
    env = {**(environment(ctx, python) if python else {}), **runtime_env(build, os.environ)}
    with ctx.locked():
        outcomes = run_plan(ctx, plan, env, stream_to(ctx.json))
    return TestReport(plan, outcomes, False, ctx.dry_run)
