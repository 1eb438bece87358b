"""Readers of build trees: what an LLVM or Triton build folder says about itself. No process runs.

Shared by setup (provenance), `tritondev build` and `tritondev doctor` (workspace checks).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from bootstrap.core.fsutil import read_regular_text

VCS_REVISION_HEADER = Path("include") / "llvm" / "Support" / "VCSRevision.h"
_REVISION_RE = re.compile(r'#define\s+LLVM_REVISION\s+"([0-9a-fA-F]{7,40})"')


def read_vcs_revision(llvm_build: Path) -> str | None:
    """The LLVM commit a build was configured from: LLVM_REVISION in its generated VCSRevision.h (what
    `llvm-config --vcs-revision` reports too), lower case; None when the build has none."""
    try:
        text = read_regular_text(llvm_build / VCS_REVISION_HEADER)
    except OSError:
        return None
    match = _REVISION_RE.search(text)
    return match.group(1).lower() if match else None


def read_cmake_cache(path: Path) -> dict[str, str]:
    """NAME -> value of a CMakeCache.txt (types dropped); empty when the file cannot be read."""
    values: dict[str, str] = {}
    try:
        text = read_regular_text(path)
    except OSError:
        return values
    for line in text.splitlines():
        if not line or line.startswith(("#", "//")) or "=" not in line:
            continue
        name_type, value = line.split("=", 1)
        values[name_type.split(":", 1)[0]] = value
    return values


def triton_cmake_dirs(setup_dir: Path) -> list[Path]:
    """setup.py's cmake build folders (build/cmake.<platform>-<impl>-<pyver>), newest first."""
    found = [p for p in (setup_dir / "build").glob("cmake.*") if (p / "build.ninja").is_file()]
    return sorted(found, key=lambda p: (p / "build.ninja").stat().st_mtime, reverse=True)


def setup_py_build_folder(setup_dir: Path, python_version: str) -> Path | None:
    """The build folder setup.py configures for a Python X.Y (`build/cmake.<platform>-<impl>-<X.Y>`, its
    get_cmake_dir in every era), when it exists."""
    major_minor = ".".join(python_version.split(".")[:2])
    found = sorted(p for p in (setup_dir / "build").glob(f"cmake.*-{major_minor}") if p.is_dir())
    return found[0] if found else None


def llvm_build_of(triton_build: Path) -> str | None:
    """The LLVM build a Triton build folder was configured against, from its CMakeCache.txt.

    LLVM_SYSPATH is there only from 3.4 on (python/setup.py of 3.0-3.3 passes LLVM_INCLUDE_DIRS and
    LLVM_LIBRARY_DIR alone); LLVM_LIBRARY_DIR (<build>/lib) and MLIR_DIR (<build>/lib/cmake/mlir,
    which CMakeLists.txt derives from it in every era) are there in every era.
    """
    cache = read_cmake_cache(triton_build / "CMakeCache.txt")
    if cache.get("LLVM_SYSPATH"):
        return cache["LLVM_SYSPATH"]
    if cache.get("LLVM_LIBRARY_DIR"):
        return str(Path(cache["LLVM_LIBRARY_DIR"]).parent)
    mlir = cache.get("MLIR_DIR", "")
    if mlir and not mlir.endswith("-NOTFOUND"):
        return str(Path(mlir).parent.parent.parent)
    return None


_LLVM_LIBRARY = re.compile(r"/.*/lib(?:LLVM|MLIR|lld)[\w.+-]*\.(?:a|so(?:\.[\d.]+)?)")


def ninja_paths(line: str) -> list[str]:
    """The paths of a build.ninja `build` line: split at spaces ninja did not escape, `$ `, `$:` and
    `$$` read as a space, a colon and a dollar (a workspace path may hold any of them)."""
    paths, current, i = [], [], 0
    while i < len(line):
        char = line[i]
        if char == "$" and i + 1 < len(line):
            current.append(line[i + 1])
            i += 2
            continue
        if char == " ":
            if current:
                paths.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    if current:
        paths.append("".join(current))
    return paths


def split_build_line(line: str) -> tuple[list[str], str]:
    """A `build OUTPUTS: RULE INPUTS` line -> (outputs, what follows the first colon ninja did not escape)."""
    body, i = line[len("build ") :], 0
    while i < len(body):
        if body[i] == "$":
            i += 2
            continue
        if body[i] == ":":
            return ninja_paths(body[:i]), body[i + 1 :]
        i += 1
    return ninja_paths(body), ""


def ninja_variable_words(value: str) -> list[str]:
    """The words of a variable's value that CMake wrote for the shell (LINK_LIBRARIES): ninja's `$$` a
    dollar; a path with a space or another shell character in double quotes, in which CMake writes
    `\\$` and `\\``, which POSIX shells (not shlex) read as `$` and a backquote."""
    text = value.replace("$$", "$").replace("\\$", "$").replace("\\`", "`")
    try:
        return shlex.split(text)
    except ValueError:  # an unbalanced quote: the plain words still say what they can
        return text.split()


def linked_llvm_libraries(triton_build: Path, library: str = "libtriton.so") -> list[str]:
    """The LLVM, MLIR and lld libraries (absolute paths) that the build folder's ninja links `library`
    with: its `build .../libtriton.so:` statement and the LINK_LIBRARIES under it, in build.ninja. What
    the library was really linked against, whatever the cache says of the LLVM it meant."""
    try:
        text = read_regular_text(triton_build / "build.ninja")
    except OSError:
        return []
    found: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("build "):
            # A real Triton's build.ninja holds thousands of statements: only one that names the
            # library (ninja escapes no character of its name) is split, a character at a time.
            inside = False
            if library in line:
                outputs, rest = split_build_line(line)
                inside = any(out == library or out.endswith("/" + library) for out in outputs)
                words = ninja_paths(rest)
        elif inside and not line.startswith(" "):
            inside = False
        if not inside:
            continue
        if not line.startswith("build "):
            words = ninja_variable_words(line.split("=", 1)[1] if "=" in line else line)
        found += [word for word in words if _LLVM_LIBRARY.fullmatch(word)]
    return list(dict.fromkeys(found))


def outside_tree(paths: list[str], tree: Path) -> list[str]:
    """The paths (links resolved) that are not inside `tree` (links resolved)."""
    root = os.path.realpath(tree)
    return [p for p in paths if os.path.commonpath([os.path.realpath(p), root]) != root]
