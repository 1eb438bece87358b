"""Which repositories an LLVM pin is looked for in, after the one the Triton commit names lacks it."""

from __future__ import annotations

from bootstrap.git.forks import candidates
from bootstrap.git.layout import llvm_sources

HASH_37 = "1f126a6dea50d185c0781743a667390037ae88bd"  # release/3.7.x's pin since #10631


def test_release_3_7_names_no_fork_so_the_triton_fork_is_tried_after_llvm() -> None:
    """release/3.7.x: cmake/llvm-hash.txt names a triton-lang/llvm-project commit, no build-info file, and
    scripts/build-llvm-project.sh clones llvm/llvm-project."""
    files = {
        "cmake/llvm-hash.txt": HASH_37 + "\n",
        "scripts/build-llvm-project.sh": 'LLVM_PROJECT_URL=${LLVM_PROJECT_URL:-"https://github.com/llvm/llvm-project"}\n',
    }
    primary, forks = llvm_sources(files.get, HASH_37)
    assert primary == "llvm/llvm-project"
    tried = candidates(primary, forks, "https://github.com/llvm/llvm-project.git")
    assert [(c.slug, c.url, c.why) for c in tried] == [
        (
            "triton-lang/llvm-project",
            "https://github.com/triton-lang/llvm-project.git",
            "Triton pins LLVM backports there",
        )
    ]
    assert [c.slug for c in candidates(primary, forks, "https://github.com/llvm/llvm-project")] == [
        "triton-lang/llvm-project"
    ]  # the URL without .git is the same repository


def test_the_repository_tried_first_is_never_tried_again_and_the_named_one_comes_first() -> None:
    tried = candidates("triton-lang/llvm-project", ("llvm/llvm-project",), "https://github.com/ROCm/llvm-project.git")
    assert [(c.slug, c.why) for c in tried] == [
        ("triton-lang/llvm-project", "the repository this Triton commit's own files name"),
        ("llvm/llvm-project", "upstream LLVM"),
    ]
    assert candidates("llvm/llvm-project", ("llvm/llvm-project",), "https://github.com/llvm/llvm-project.git") == []
