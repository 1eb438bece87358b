"""What libtriton.so links is read from build.ninja as real CMake writes it, under any workspace path.

Setup's proof that Triton was built against the LLVM it named reads the libraries of libtriton.so's
link from build.ninja: the build line (ninja's `$ `, `$:`, `$$` escapes) and LINK_LIBRARIES (CMake's
shell quoting). A workspace path with a space, a colon, a dollar or a quote must not cut a path in
two, or the proof names a folder that does not exist and setup fails after a good build.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bootstrap.pipeline.host.buildtree import linked_llvm_libraries

ODD_NAMES = [
    "plain",
    "with space",
    "colon:inside",
    "dollar$sign",
    "quote'single",
    'quote"double',
    "back\\slash",
    "hash#amp&star*paren(",
    "backquote`",
    "accents é ü",
    "all $ : ' é",
]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_cmake_link_libraries_are_read_whole(tmp_path: Path, name: str) -> None:
    llvm_lib = tmp_path / name / "build" / "llvm" / "lib"
    libraries = [llvm_lib / "libMLIRIR.a", llvm_lib / "libLLVMSupport.a", llvm_lib / "liblldELF.a"]
    source = tmp_path / "src"
    source.mkdir()
    (source / "main.c").write_text("int triton(void) { return 0; }\n")
    # CMake's bracket arguments take any path as it is.
    listed = " ".join(f"[==[{lib}]==]" for lib in libraries)
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(mini C)\n"
        "add_library(triton SHARED main.c)\n"
        f"target_link_libraries(triton PRIVATE {listed})\n"
    )
    build = tmp_path / "build"
    subprocess.run(["cmake", "-G", "Ninja", "-S", str(source), "-B", str(build)], check=True, capture_output=True)
    assert linked_llvm_libraries(build) == [str(lib) for lib in libraries]
