"""A private test world with history to bisect: Triton and LLVM commits with regressions.

`build_bisect_world(root)` builds the ordinary world (tests.world.world) under `root` and adds, on
branches of their own (main and the world's labels are untouched):

Triton, branch `bisect` (16 commits after `main`, all pinned to the world's LLVM):
    most commits touch a comment in lib/Dialect/TritonGPU/IR/Dialect.cpp (one file to recompile);
    `broken`: lib/Dialect/Triton/IR/Types.cpp calls a function that does not exist (does not compile),
    fixed by the next commit; `regression`: the vector-add kernel subtracts (`arith.subf`), which
    `CHECK_ADD` (a Python script) detects.
Triton, branch `bisect-bump` (8 commits after `main`): `bump` moves the LLVM pin to the world's
    `other` commit and adapts Ops.cpp to its API (as the world's `other-llvm` commit does); a later
    `regression` subtracts again.
LLVM, branch `bisect-range` (6 commits after the pinned one): `behaviour` makes the generic printer
    drop attributes (Triton still builds; `CHECK_KERNEL_NAME` fails, the kernel's name is gone);
    `api_break` is the world's `other` API change (a Triton pinned to the world's LLVM no longer
    compiles against it); the others touch a comment in one source file.

Commit dates are fixed, so the ids are the same on every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.world.world import TEMPLATES, World, build_world

_EPOCH = 1769904000  # 2026-02-01: after every commit of the ordinary world

# Exit 0 when the vector-add kernel adds, 1 when it does not (the Triton regression).
CHECK_ADD = """\
import sys
import triton

ttir = triton.compile_vector_add()["ttir"]
print("arith.addf" in ttir and "vector add: adds" or "vector add: does not add")
sys.exit(0 if "arith.addf" in ttir else 1)
"""

# Exit 0 when the kernel's name survives printing, 1 when it does not (the LLVM regression).
CHECK_KERNEL_NAME = """\
import sys
import triton

ttir = triton.compile_vector_add()["ttir"]
sys.exit(0 if "add_kernel" in ttir else 1)
"""


@dataclass(frozen=True)
class Range:
    """Commits after `good` on one branch, oldest first; `bad` is the last one."""

    good: str
    commits: tuple[str, ...]
    labels: dict[str, str]  # label -> commit (e.g. "broken", "regression", "bump")
    subjects: dict[str, str]  # commit -> subject

    @property
    def bad(self) -> str:
        return self.commits[-1]


@dataclass(frozen=True)
class BisectWorld:
    world: World
    triton: Range  # branch `bisect`: constant LLVM pin, one commit that does not compile, one regression
    bump: Range  # branch `bisect-bump`: an LLVM bump, then a regression
    llvm: Range  # branch `bisect-range` of llvm-project: a behaviour change, then an API break


class _Git:
    """git in one work repository, with fixed identities and dates one hour apart."""

    def __init__(self, repo: Path, start: int) -> None:
        self.repo = repo
        self.clock = start

    def __call__(self, *args: str) -> str:
        stamp = f"@{_EPOCH + self.clock * 3600} +0000"
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_AUTHOR_NAME="World Builder",
            GIT_AUTHOR_EMAIL="world@example.invalid",
            GIT_COMMITTER_NAME="World Builder",
            GIT_COMMITTER_EMAIL="world@example.invalid",
            GIT_AUTHOR_DATE=stamp,
            GIT_COMMITTER_DATE=stamp,
        )
        proc = subprocess.run(["git", *args], cwd=self.repo, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed in {self.repo}:\n{proc.stderr}")
        return proc.stdout.strip()

    def commit(self, subject: str) -> str:
        self.clock += 1
        self("add", "-A")
        self("commit", "-q", "-m", subject)
        return self("rev-parse", "HEAD")


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


class _Branch:
    """Commits on one new branch of a work repository, collected into a Range."""

    def __init__(self, git: _Git, branch: str, base: str) -> None:
        git("checkout", "-q", "-b", branch, base)
        self.git, self.good = git, git("rev-parse", "HEAD")
        self.commits: list[str] = []
        self.labels: dict[str, str] = {}
        self.subjects: dict[str, str] = {}

    def commit(self, subject: str, label: str | None = None) -> str:
        sha = self.git.commit(subject)
        self.commits.append(sha)
        self.subjects[sha] = subject
        if label:
            self.labels[label] = sha
        return sha

    def note(self, path: str, number: int, subject: str) -> str:
        _append(self.git.repo / path, f"// Note {number}: kept in step with the upstream layout rules.\n")
        return self.commit(subject)

    def done(self) -> Range:
        self.git("checkout", "-q", "main")
        return Range(self.good, tuple(self.commits), dict(self.labels), dict(self.subjects))


_TRITONGPU = "lib/Dialect/TritonGPU/IR/Dialect.cpp"
_OPS = "lib/Dialect/Triton/IR/Ops.cpp"


def _triton_history(b: _Branch, count: int, number: int, special: dict[int, Callable[[], tuple[str, str]]]) -> Range:
    """`count` commits: special[n]() edits the tree and names commit n (subject, label), the others are notes."""
    for n in range(count):
        if n in special:
            subject, label = special[n]()
            b.commit(f"{subject} (#{number + n})", label)
        else:
            b.note(_TRITONGPU, n, f"[TritonGPU] Layout cleanup, part {n} (#{number + n})")
    return b.done()


def _regression(git: _Git) -> tuple[str, str]:
    _replace(git.repo / _OPS, '"arith.addf"', '"arith.subf"')
    return "[Frontend] Canonicalize the vector-add body", "regression"


_UNFINISHED = "\nint tensorTypeRank() { return computeRankOfTensorType(); }\n"


def _triton_range(git: _Git) -> Range:
    """16 commits: #7 does not compile (fixed by #8), #10 is the regression."""
    types = git.repo / "lib/Dialect/Triton/IR/Types.cpp"

    def broken() -> tuple[str, str]:
        _append(types, _UNFINISHED)
        return "[WIP] Start the tensor type rank helper", "broken"

    def fixed() -> tuple[str, str]:
        _replace(types, _UNFINISHED, "")
        return "Revert the unfinished tensor type rank helper", "fixed"

    return _triton_history(
        _Branch(git, "bisect", "main"), 16, 2100, {7: broken, 8: fixed, 10: lambda: _regression(git)}
    )


def _bump_range(git: _Git, world: World) -> Range:
    """8 commits: #3 bumps LLVM to the world's `other` commit, #5 is the regression."""

    def bump() -> tuple[str, str]:
        git("checkout", world.triton_commits["other-llvm"], "--", _OPS, "cmake/llvm-info.json")
        return f"[BUILD] Bump LLVM to {world.llvm_commits['other'][:8]}", "bump"

    return _triton_history(_Branch(git, "bisect-bump", "main"), 8, 2200, {3: bump, 5: lambda: _regression(git)})


def _llvm_range(git: _Git, world: World) -> Range:
    """6 commits after the pinned one: #2 drops attributes when printing, #4 breaks the MLIR API."""
    b = _Branch(git, "bisect-range", world.llvm_commits["pinned"])
    b.note("llvm/lib/Support/Hashing.cpp", 0, "[Support] Document the hash mixing constants")
    b.note("mlir/lib/IR/Operation.cpp", 1, "[MLIR][NFC] Comment the operation storage")
    _replace(
        git.repo / "mlir/lib/IR/AsmPrinter.cpp",
        "if (!attributes.empty()) {",
        "if (printGenericAttributes && !attributes.empty()) {",
    )
    _replace(
        git.repo / "mlir/lib/IR/AsmPrinter.cpp",
        "namespace mlir {\n",
        "namespace mlir {\n\n// Attributes are elided by the generic printer.\nstatic constexpr bool "
        "printGenericAttributes = false;\n",
    )
    b.commit("[MLIR] Elide attributes in the generic op printer", "behaviour")
    b.note("llvm/lib/Support/StringUtils.cpp", 3, "[Support][NFC] Tidy the string helpers")
    shutil.copytree(TEMPLATES / "llvm-project-other", git.repo, dirs_exist_ok=True)
    b.commit("[MLIR] OpBuilder::create takes a Location first", "api_break")
    b.note("llvm/lib/Support/Hashing.cpp", 5, "[Support][NFC] Spelling in the hash comments")
    return b.done()


def _publish(work: Path, bare: Path, *branches: str) -> None:
    subprocess.run(
        ["git", "-C", str(work), "push", "-q", str(bare), *(f"refs/heads/{b}" for b in branches)],
        check=True,
        capture_output=True,
    )


def build_bisect_world(root: Path) -> BisectWorld:
    """The ordinary world under `root`, plus the branches above in its work and bare repositories."""
    world = build_world(root)
    triton_git = _Git(world.work["triton"], 0)
    triton = _triton_range(triton_git)
    bump = _bump_range(triton_git, world)
    llvm = _llvm_range(_Git(world.work["llvm-project"], 100), world)
    _publish(world.work["triton"], world.bare["triton"], "bisect", "bisect-bump")
    _publish(world.work["llvm-project"], world.bare["llvm-project"], "bisect-range")
    return BisectWorld(world, triton, bump, llvm)


@pytest.fixture(scope="module")
def bisect_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BisectWorld]:
    """A private world with the bisect branches, per test module (the tests move nothing in it)."""
    yield build_bisect_world(tmp_path_factory.mktemp("bisect-world") / "w")
