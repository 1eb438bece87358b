"""`--llvm PATH`: what each Triton version's configure requires of the tree, refused early."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.git.setup_py import SetupPyArgs, read_setup_py_args
from bootstrap.pipeline.llvm.requirements import era_missing
from bootstrap.pipeline.llvm.source import TreeReport, judge_tree


def tree(tmp_path: Path, *files: str) -> Path:
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    return tmp_path


def test_lld_and_clang_as_the_checkouts_cmake_finds_them(tmp_path: Path) -> None:
    """third_party/amd finds lld's package from #7548, third_party/nvidia the tree's clang++ from #9568:
    read from the checkout's CMake files, not its version number (both landed under an older number)."""
    bare = tree(tmp_path)
    before_35 = SetupPyArgs(finds_lld=False, finds_clangxx=False)
    assert era_missing(bare, before_35) == []
    assert [m.split(",")[0] for m in era_missing(bare, SetupPyArgs(finds_clangxx=False))] == [
        "lib/cmake/lld/LLDConfig.cmake"
    ]
    assert [m.split(",")[0] for m in era_missing(bare, SetupPyArgs())] == [
        "lib/cmake/lld/LLDConfig.cmake",
        "bin/clang++",
    ]
    full = tree(tmp_path, "lib/cmake/lld/LLDConfig.cmake", "bin/clang++")
    assert era_missing(full, SetupPyArgs()) == []
    # A main commit after #9568 that still says 3.6.0: its nvidia CMake finds clang++.
    files = {
        "setup.py": 'TRITON_VERSION = "3.6.0"\n',
        "third_party/amd/CMakeLists.txt": "find_package(LLD REQUIRED)\n",
        "third_party/nvidia/CMakeLists.txt": "find_program(TRITON_GSAN_CLANGXX NAMES clang++)\n",
    }
    assert read_setup_py_args(files.get, ".").finds_clangxx and read_setup_py_args(files.get, ".").finds_lld


def test_a_tree_without_clang_is_refused_naming_what_is_missing(tmp_path: Path) -> None:
    root = tree(tmp_path, "lib/cmake/lld/LLDConfig.cmake")
    report = TreeReport(root, (), ("NVPTX", "AMDGPU", "X86"), "a" * 40)
    with pytest.raises(ConfigError) as caught:
        judge_tree(report, "a" * 40, "nvidia", False, "3.8.0", SetupPyArgs())
    assert "bin/clang++" in caught.value.message and "TRITON_GSAN_CLANGXX" in caught.value.message
    assert judge_tree(report, "a" * 40, "nvidia", False, "3.6.0", SetupPyArgs(finds_clangxx=False)) == ()
