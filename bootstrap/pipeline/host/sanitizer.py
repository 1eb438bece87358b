"""`--sanitize address`: proved before a build that takes minutes needs it.

Triton's setup.py turns TRITON_BUILD_WITH_ASAN=1 into `-fsanitize=address` for every C and C++
file ("asan doesn't work with binaries that use the GPU, so this is only useful for tools like
triton-opt that don't run code on the GPU", setup.py). The compiler must then link its
AddressSanitizer runtime, which distributions package apart from the compiler (clang's
compiler-rt, gcc's libasan): without it the build fails at its first link. One tiny program,
compiled and linked the way the build will, tells in a fraction of a second.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ToolMissing
from bootstrap.core.io import writes
from bootstrap.pipeline.host.buildtree import read_cmake_cache

if TYPE_CHECKING:
    from bootstrap.core.process.runner import Runner

# What upstream runs ASAN-built programs with (.github/workflows/integration-tests-amd.yml, step "Run asan
# tests on AMD"): no leak report (MLIR's crash recovery leaks by design), no alloc/dealloc mismatch report.
ASAN_OPTIONS = "detect_leaks=0,alloc_dealloc_mismatch=0"

_PROGRAM = "#include <vector>\nint main() { std::vector<int> v(4); return v[0]; }\n"


def check_sanitizer(runner: Runner, cxx: str, use_lld: bool, sanitize: str | None) -> None:
    """A ToolMissing (exit 3) when `cxx` cannot link a program with the sanitizer `sanitize` asks for."""
    if sanitize != "address":
        return
    with tempfile.TemporaryDirectory(prefix="tritondev-asan-") as tmp:
        source = Path(tmp) / "probe.cpp"
        writes.replace_text(source, _PROGRAM)
        argv = [
            cxx,
            "-fsanitize=address",
            *(["-fuse-ld=lld"] if use_lld else []),
            str(source),
            "-o",
            str(Path(tmp) / "probe"),
        ]
        result = runner.capture(argv, step="sanitizer-probe", check=False)
    if result.returncode == 0:
        return
    output = (result.stdout + "\n" + result.stderr).strip()
    clang = "clang" in Path(cxx).name or "libclang_rt" in output
    fix = (
        "install this clang's compiler-rt (Debian/Ubuntu: apt-get install libclang-rt-<version>-dev, or "
        "libclang-common-<version>-dev on older releases), or build with gcc: --no-lld"
        if clang
        else "install gcc's AddressSanitizer runtime (Debian/Ubuntu: apt-get install libasan8, "
        "Fedora: dnf install libasan)"
    )
    raise ToolMissing(
        f"{cxx} cannot link a program with -fsanitize=address: its AddressSanitizer runtime is missing",
        fix=fix,
        details="\n".join(output.splitlines()[-5:]) or None,
    )


def sanitized_build(build_dir: Path) -> bool:
    """A Triton build folder configured with TRITON_BUILD_WITH_ASAN (-fsanitize=address in CMAKE_CXX_FLAGS)."""

    return "-fsanitize=address" in read_cmake_cache(build_dir / "CMakeCache.txt").get("CMAKE_CXX_FLAGS", "")


def preload_env(runner: Runner, build_dir: Path) -> dict[str, str]:
    """What a Python that imports an ASAN build of Triton needs: the runtime preloaded (it must come first,
    and python was not linked with it) and upstream's ASAN_OPTIONS. Empty for other builds, or when the
    compiler does not say where its runtime is (ASan's own message then says what is wrong)."""

    if not sanitized_build(build_dir):
        return {}
    cxx = read_cmake_cache(build_dir / "CMakeCache.txt").get("CMAKE_CXX_COMPILER", "c++")
    for name in ("libasan.so", "libclang_rt.asan-x86_64.so", "libclang_rt.asan.so"):
        result = runner.capture([cxx, f"-print-file-name={name}"], step="sanitizer-probe", check=False)
        found = Path(result.stdout.strip())
        if result.returncode == 0 and found.is_absolute() and found.is_file():
            return {"LD_PRELOAD": str(found), "ASAN_OPTIONS": ASAN_OPTIONS}
    return {}
