"""The generated benchmark tree (tests/perf/scale) fits on top of the test world's Triton: no target
name or file of the world is taken over (a clash makes Triton's configure fail, an overwrite
silently drops what the world builds)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.perf.scale import cmake, sources
from tests.perf.scale.world import triton_files

WORLD_TRITON = Path(__file__).resolve().parents[2] / "world/templates/triton/common"
TARGET = re.compile(r"add_(?:library|executable)\((\S+)")


def _world_targets() -> set[str]:
    return {m for f in WORLD_TRITON.rglob("CMakeLists.txt") for m in TARGET.findall(f.read_text())}


def test_generated_triton_targets_are_not_the_worlds() -> None:
    plan = sources.plan(600)
    generated = "".join(cmake.triton_library(lib) for lib in plan.of("triton"))
    generated += cmake.triton_tools(plan.of("triton"))
    names = set(TARGET.findall(generated))
    assert names >= {lib.name for lib in plan.of("triton")} | set(sources.TRITON_TOOLS)
    assert not names & _world_targets()


def test_generated_triton_files_overwrite_nothing_of_the_world() -> None:
    world_files = {p.relative_to(WORLD_TRITON).as_posix() for p in WORLD_TRITON.rglob("*") if p.is_file()}
    assert not set(triton_files(sources.plan(600))) & world_files


def test_generated_tools_go_into_the_worlds_bin_without_adding_it_again() -> None:
    plan = sources.plan(600)
    assert "add_subdirectory(bin)" not in cmake.triton_appendix(plan)
    assert "add_subdirectory(bin)" in (WORLD_TRITON / "CMakeLists.txt").read_text()
