"""The one job sizing (pipeline/host/jobs.py): from settings to the jobs a build runs with, the same for
setup's plan, `config show`, `build` with distcc and doctor's memory checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.settings.settings_table import Settings
from bootstrap.pipeline.host.jobs import (
    GIB,
    Resources,
    hungriest,
    memory_allows,
    per_compile,
    per_link,
    size_for_build_types,
    size_for_settings,
)


@pytest.mark.parametrize(
    ("triton", "llvm", "expected"),
    [
        ("Release", "Release", "Release"),
        ("Release", "Debug", "Debug"),
        ("RelWithDebInfo", "Release", "RelWithDebInfo"),
        ("Debug", "RelWithDebInfo", "Debug"),
    ],
)
def test_both_builds_are_sized_by_the_hungrier_build_type(triton: str, llvm: str, expected: str) -> None:
    assert hungriest(triton, llvm) == expected
    assert per_compile(expected) >= per_compile(triton) and per_link(expected) >= per_link(llvm)


def test_from_settings_as_setup_sizes_them(tmp_path: Path) -> None:
    res = Resources(cpus=64, mem_available=32 * GIB)
    settings = Settings(workspace=tmp_path, build_type="Release", llvm_build_type="Debug", link_jobs=2)
    sized = size_for_settings(settings, res)
    assert sized == size_for_build_types(res, "Release", "Debug", link_jobs=2)
    assert sized.compile == memory_allows(res, "Debug") == 12  # 32 GiB at 2.5 GiB per Debug compile
    assert sized.link == 2 and "link jobs 2 given" in sized.reason
    given = Settings(workspace=tmp_path, jobs=5)
    assert size_for_settings(given, res).compile == 5


def test_with_distcc_the_compiles_come_from_the_hosts_slots(tmp_path: Path) -> None:
    res = Resources(cpus=8, mem_available=16 * GIB)
    settings = Settings(workspace=tmp_path, build_type="Release", llvm_build_type="Release")
    sized = size_for_settings(settings, res, distcc_slots=40)
    assert sized.compile == 32  # 16 GiB at 0.5 GiB per preprocessor, below the 40 slots
    assert sized.tablegen == size_for_settings(settings, res).compile == 8


def test_memory_allows_at_least_one_compile() -> None:
    assert memory_allows(Resources(cpus=4, mem_available=GIB), "Debug") == 1
    assert memory_allows(Resources(cpus=4, mem_available=10 * GIB), "Release") == 6
