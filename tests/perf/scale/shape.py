"""The file counts of the real checkouts, and the filler files that give the benchmark tree that shape.

What a no-op of setup pays for in a checkout is per file and per folder (git lstat()s every tracked
file and reads every folder to find untracked ones), not per byte, so the benchmark's checkouts
get upstream's numbers of files and folders, area by area:

- llvm-project at llvmorg-22.1.8 (the LLVM 22 release; Triton's 3.8 cut pins 62b7cf96 from the same
  months): counted in Debian's llvm-toolchain-22_22.1.8.orig.tar.xz (sha256 b49b9277aef97616320b2da2
  59e1f8174c65b0ce2fbe2e8629644a97693402fe; its `debian/orig-tar.sh`
  exports the tree from git and adds `integration-test-suite/`, not counted here; it drops `.github/`,
  `.gitignore`/`.gitattributes` files and `*/www/`, so upstream has a few hundred files more):
  168,826 tracked files (168,807 regular files and 19 symbolic links) in 15,771 folders, 64,104 of
  the files and 1,606 of the folders in llvm/test;
- Triton at 5838701f (the 3.8 cut): 1,686 files in 357 folders (`git ls-tree -r`, read in the
  facebookexperimental/triton mirror of triton-lang/triton's history).

The generated build tree (libraries, headers, lit tests: sources.py, layers.py) already fills part of
each area; `filler` adds small text files in new folders until every area has upstream's count (an
area the generated tree fills beyond it keeps its own: mlir/test, whose generated lit tests outnumber
the real ones at the default size, so the default checkout has a few thousand files more).
New folders only: no filler file lands in a folder of the build's own sources, so the build, its
CMake source lists and its compile targets stay what they were; the filler under llvm/test and
mlir/test is globbed by the configure's add_lit_testsuites, as the real test tree is. Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

FAN_OUT = 12  # sub-folders per filler folder: depth grows as in the real trees (3-6 levels)


@dataclass(frozen=True)
class Area:
    root: str  # repository-relative folder ("" for the repository root)
    files: int  # tracked files (links included) anywhere below it, areas nested in it excluded
    folders: int  # folders below it (itself not counted), areas nested in it excluded
    suffix: str = ".txt"
    place: str | None = None  # where new folders go (default: the root itself)


# llvm-project at llvmorg-22.1.8: every top-level folder, llvm/test and mlir/test apart.
LLVM_AREAS = (
    Area("llvm/test", 64104, 1605, ".ll"), Area("llvm", 12297, 1741, ".cpp"),
    Area("mlir/test", 3357, 347, ".mlir"), Area("mlir", 3603, 872, ".cpp"),
    Area("clang", 32158, 4904, ".cpp"), Area("libcxx", 12180, 2420, ".cpp"), Area("lldb", 8933, 1820, ".cpp"),
    Area("libc", 6264, 405, ".cpp"), Area("flang", 5068, 209, ".f90"), Area("compiler-rt", 4673, 248, ".cpp"),
    Area("lld", 4123, 70, ".s"), Area("clang-tools-extra", 3748, 361, ".cpp"), Area("polly", 2831, 88, ".ll"),
    Area("bolt", 1154, 64, ".test"), Area("libclc", 917, 92, ".cl"), Area("openmp", 832, 103, ".c"),
    Area("offload", 751, 81, ".cpp"), Area("third-party", 750, 68, ".h"),
    Area("cross-project-tests", 306, 62, ".cpp"), Area("flang-rt", 243, 21, ".cpp"),
    Area("libcxxabi", 156, 19, ".cpp"), Area("utils", 130, 105, ".bzl"), Area("orc-rt", 97, 13, ".cpp"),
    Area("libunwind", 74, 8, ".cpp"), Area(".ci", 21, 3, ".py"), Area("libsycl", 15, 7, ".cpp"),
    Area("cmake", 15, 1, ".cmake"), Area("runtimes", 11, 3, ".txt"), Area("llvm-libgcc", 4, 1, ".txt"),
    Area(".claude", 1, 0, ".md"), Area("", 10, 0, ".md"),
)  # fmt: skip
LLVM_FILES, LLVM_FOLDERS = 168_826, 15_771
LLVM_TEST_FILES, LLVM_TEST_FOLDERS = 64_104, 1_606

# Triton at 5838701f: the whole checkout is one area; new folders go under docs/ (never built).
TRITON_AREAS = (Area("", 1686, 357, ".md", place="docs"),)
TRITON_FILES, TRITON_FOLDERS = 1_686, 357

# The filler a build reads: LLVM's configure globs its test folders (add_lit_testsuites).
READ_BY_THE_BUILD = ("llvm/test/", "mlir/test/")


def _area_of(path: str, roots: dict[str, Area]) -> Area:
    """The deepest area whose root holds `path` (the root area "" holds everything)."""
    parts = path.split("/")
    for depth in range(len(parts), -1, -1):
        area = roots.get("/".join(parts[:depth]))
        if area is not None:
            return area
    raise ValueError(f"{path} is in no area")


def folders_of(files: Iterable[str]) -> set[str]:
    """Every folder holding a file of `files`, at any depth (the repository root not included)."""
    folders: set[str] = set()
    for path in files:
        folder = path.rpartition("/")[0]
        while folder and folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return folders


def census(files: Iterable[str], areas: tuple[Area, ...]) -> dict[str, tuple[int, int]]:
    """Area root -> (files, folders below the root) of a tree; roots of areas are counted in none."""
    files = list(files)
    roots = {area.root: area for area in areas}
    file_counts = Counter(_area_of(path, roots).root for path in files)
    folder_counts = Counter(_area_of(folder, roots).root for folder in folders_of(files) if folder not in roots)
    return {area.root: (file_counts[area.root], folder_counts[area.root]) for area in areas}


def _new_folders(base: str, count: int, taken: set[str]) -> list[str]:
    """`count` new folders under `base`, FAN_OUT to a folder: the first FAN_OUT at the top, then the
    children of each in turn (depth about log_FAN_OUT(count))."""
    paths: list[str] = []
    serial = 0
    while len(paths) < count:
        k = len(paths)
        parent = base if k < FAN_OUT else paths[k // FAN_OUT - 1]
        folder = "/".join(p for p in (parent, f"Shape{serial:05d}") if p)
        serial += 1
        if folder not in taken:
            paths.append(folder)
    return paths


def filler(existing: Iterable[str], areas: tuple[Area, ...], label: str) -> dict[str, str]:
    """Files to add to a tree of `existing` files so that every area has its files and folders."""
    existing = list(existing)
    counts = census(existing, areas)
    taken = folders_of(existing) | set(existing)
    files: dict[str, str] = {}
    for area in areas:
        have_files, have_folders = counts[area.root]
        want = max(0, area.folders - have_folders)
        base = area.place if area.place is not None else area.root
        new = [base] if base != area.root and base not in taken and want else []
        new += _new_folders(base, want - len(new), taken)
        # git keeps no empty folder: every new folder that holds no new folder gets a file, even
        # where the area has its files already (mlir/test, filled by the generated lit tests).
        parents = {folder.rpartition("/")[0] for folder in new}
        leaves = [folder for folder in new if folder not in parents]
        homes = leaves + [folder for folder in new if folder in parents] or [area.root]
        for i in range(max(area.files - have_files, len(leaves))):
            folder = homes[i % len(homes)]
            name = f"shape-{i:06d}{area.suffix}"
            path = f"{folder}/{name}" if folder else name
            files[path] = f"{label}: file {i + 1} of the {area.root or 'top'} area's filler (upstream's file count)\n"
    return files
