"""Triton's lit tests, run the way its Makefile and AGENTS.md run them.

Everything: `ninja -C <build> check-triton-lit-tests` (the Makefile's test-lit; it builds triton-opt
first). Some: `ninja -C <build> triton-opt`, then `lit -v <build>/test/<path>` for a file or folder
under test/ (lit finds the build's lit.site.cfg.py above the path and maps it back to the source),
or `lit -v <build>/test --filter <regex>` for anything else. lit is the one the build was configured
with (setup.py passes the pip-installed lit as LLVM_EXTERNAL_LIT), else the one next to the target
Python; FileCheck is the one of the LLVM build, as the generated lit.site.cfg.py says.
"""

from __future__ import annotations

from pathlib import Path

from bootstrap.pipeline.host.buildtree import read_cmake_cache

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


def lit_arguments(source_tests: Path, build_dir: Path, pattern: str) -> list[str]:
    """What lit runs for PATTERN: a test file or folder under test/ (`test/` in front or not), else a filter."""
    relative = pattern.strip().removeprefix("./").removeprefix("test/").strip("/")
    if relative and ".." not in Path(relative).parts and (source_tests / relative).exists():
        return ["-v", str(build_dir / "test" / relative)]
    return ["-v", str(build_dir / "test"), "--filter", pattern]




