"""`--llvm PATH`: what each Triton version's configure requires of the tree, refused early."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.pipeline.llvm.requirements import era_missing
from bootstrap.pipeline.llvm.source import TreeReport, judge_tree


def tree(tmp_path: Path, *files: str) -> Path:
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    return tmp_path


def test_lld_from_3_5_and_clang_from_3_7(tmp_path: Path) -> None:
    bare = tree(tmp_path)
    assert era_missing(bare, "3.4.0") == []
    assert [m.split(",")[0] for m in era_missing(bare, "3.5.1")] == ["lib/cmake/lld/LLDConfig.cmake"]
    assert [m.split(",")[0] for m in era_missing(bare, "3.7.0")] == ["lib/cmake/lld/LLDConfig.cmake", "bin/clang++"]
    full = tree(tmp_path, "lib/cmake/lld/LLDConfig.cmake", "bin/clang++")
    assert era_missing(full, "3.9.0") == []


def test_a_tree_without_clang_is_refused_naming_what_is_missing(tmp_path: Path) -> None:
    root = tree(tmp_path, "lib/cmake/lld/LLDConfig.cmake")
    report = TreeReport(root, (), ("NVPTX", "AMDGPU", "X86"), "a" * 40)
    with pytest.raises(ConfigError) as caught:
        judge_tree(report, "a" * 40, "nvidia", False, "3.8.0")
    assert "bin/clang++" in caught.value.message and "TRITON_GSAN_CLANGXX" in caught.value.message
    assert judge_tree(report, "a" * 40, "nvidia", False, "3.6.0") == ()
