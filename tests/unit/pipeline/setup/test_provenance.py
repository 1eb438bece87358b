"""Provenance reads what the build really used: the LLVM entries find_package cached and the libraries
build.ninja links libtriton.so with; a release branch's plain version is the checkout's own."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.pipeline.host.buildtree import linked_llvm_libraries, outside_tree
from bootstrap.pipeline.setup.provenance import BuiltWith, Expected, built_with, judge

HEAD = "a" * 40
NEW, OLD = Path("/ws/build/llvm/new"), Path("/ws/build/llvm/old")
EXPECTED = Expected(Path("/ws/src/triton"), Path("/ws/src/triton"), NEW, "b" * 40, "3.8.0")
INSTALLED = {"version": f"3.8.0+git{HEAD[:8]}", "file": "/ws/src/triton/python/triton/__init__.py"}

NINJA = f"""# Link the shared library /ws/src/triton/python/triton/_C/libtriton.so

build /ws/src/triton/python/triton/_C/libtriton.so: CXX_SHARED_LIBRARY_LINKER__triton_X main.cc.o | \
{NEW}/lib/libMLIRIR.a {OLD}/lib/libLLVMSupport.a
  LINK_LIBRARIES = libTritonIR.a  -lz  {NEW}/lib/libMLIRIR.a  {OLD}/lib/libLLVMSupport.a  {NEW}/lib/liblldELF.a
  SONAME = libtriton.so

build bin/triton-opt: CXX_EXECUTABLE_LINKER__triton-opt_X | {OLD}/lib/libLLVMCore.a
  LINK_LIBRARIES = {OLD}/lib/libLLVMCore.a
"""


def test_only_libtritons_link_is_read(tmp_path: Path) -> None:
    (tmp_path / "build.ninja").write_text(NINJA)
    libs = linked_llvm_libraries(tmp_path)
    assert libs == [f"{NEW}/lib/libMLIRIR.a", f"{OLD}/lib/libLLVMSupport.a", f"{NEW}/lib/liblldELF.a"]
    assert outside_tree(libs, NEW) == [f"{OLD}/lib/libLLVMSupport.a"]
    assert linked_llvm_libraries(tmp_path / "missing") == []


@given(st.text(max_size=600))
def test_any_build_file_is_read_without_error(text: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "build.ninja").write_text(text, encoding="utf-8", errors="surrogateescape")
        for lib in linked_llvm_libraries(Path(folder)):
            assert lib.startswith("/")


def _ninja_escaped(path: str) -> str:
    """A path as ninja's build lines carry it (CMake's cmGlobalNinjaGenerator::EncodePath)."""
    return path.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


SHELL_SPECIAL = set(" #$&'()*`\\")


def _cmake_quoted(path: str) -> str:
    """A path as CMake writes it into LINK_LIBRARIES, as seen with CMake 3.25 here (the real-CMake
    check is tests/integration/build/test_link_libraries.py): double quotes around one holding a shell
    character, `\\`, `\\$`, `\\``, `\\"` inside them, `\\"` outside; then ninja's `$$`."""
    if SHELL_SPECIAL & set(path):
        word = '"' + "".join("\\" + c if c in '\\$`"' else c for c in path) + '"'
    else:
        word = path.replace('"', '\\"')
    return word.replace("$", "$$")


# Workspace folder names: spaces, colons, dollars, quotes, backslashes, non-ASCII letters; no `;` (a
# CMake list separator) or newline.
FOLDER = st.text(st.sampled_from(list("ab é:$!%#&'(*`\\\"")), min_size=1, max_size=12).filter(
    lambda t: t.strip() == t and t not in (".", "..")
)


@given(FOLDER, FOLDER)
def test_libraries_under_any_workspace_path_are_read_whole(ws_name: str, llvm_name: str) -> None:
    import tempfile

    ws = f"/tmp/{ws_name}/ws dir é"
    lib_a, lib_b = f"{ws}/build/llvm/{llvm_name}/lib/libMLIRIR.a", f"{ws}/build/llvm/{llvm_name}/lib/libLLVMCore.a"
    ninja = (
        f"build {_ninja_escaped(ws)}/src/triton/python/triton/_C/libtriton.so: CXX_SHARED_LIBRARY_LINKER main.o"
        f" | libTritonIR.a {_ninja_escaped(lib_a)}\n"
        f"  LINK_LIBRARIES = libTritonIR.a  -lz  {_cmake_quoted(lib_a)}  {_cmake_quoted(lib_b)}\n"
        "  SONAME = libtriton.so\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "build.ninja").write_text(ninja, encoding="utf-8")
        assert linked_llvm_libraries(Path(folder)) == [lib_a, lib_b]


def test_a_build_that_used_the_llvm_named_passes() -> None:
    findings = judge(EXPECTED, INSTALLED, HEAD, BuiltWith(str(NEW)), EXPECTED.llvm_commit)
    assert findings.ok, findings.problems


def test_a_cached_llvm_dir_and_libraries_of_another_llvm_are_named_with_both_trees() -> None:
    built = BuiltWith(str(NEW), (("LLVM_DIR", f"{OLD}/lib/cmake/llvm"),), (f"{OLD}/lib/libLLVMSupport.a",))
    findings = judge(EXPECTED, INSTALLED, HEAD, built, EXPECTED.llvm_commit)
    problems = findings.problems
    assert not findings.ok and isinstance(problems, tuple)
    assert f"the Triton build folder's LLVM_DIR is {OLD}/lib/cmake/llvm, not inside {NEW}" in problems
    assert f"libtriton.so is linked with 1 LLVM libraries from {OLD}/lib, not from {NEW}" in problems


def test_built_with_reads_the_folder(tmp_path: Path) -> None:
    (tmp_path / "build.ninja").write_text(NINJA)
    (tmp_path / "CMakeCache.txt").write_text(
        f"LLVM_SYSPATH:PATH={NEW}\nLLVM_DIR:PATH={OLD}/lib/cmake/llvm\n"
        f"MLIR_DIR:PATH=MLIR_DIR-NOTFOUND\nLLD_DIR:PATH={NEW}/lib/cmake/lld\n"
    )
    built = built_with(tmp_path, NEW)
    assert built.llvm_syspath == str(NEW)
    assert built.cached_elsewhere == (("LLVM_DIR", f"{OLD}/lib/cmake/llvm"),)
    assert built.linked_elsewhere == (f"{OLD}/lib/libLLVMSupport.a",)


def test_a_release_branch_version_without_the_git_suffix_is_ours() -> None:
    """release/3.2.x's setup.py gives plain 3.2.0 (#5405); before 3.2 there was no suffix at all."""
    for base in ("3.2.0", "3.1.0", "3.8.0"):
        expected = Expected(EXPECTED.triton_src, EXPECTED.setup_dir, NEW, EXPECTED.llvm_commit, base)
        ok = judge(expected, {**INSTALLED, "version": base}, HEAD, BuiltWith(str(NEW)), EXPECTED.llvm_commit)
        assert ok.ok, ok.problems
    other = judge(
        EXPECTED, {**INSTALLED, "version": "3.8.0+git12345678"}, HEAD, BuiltWith(str(NEW)), EXPECTED.llvm_commit
    )
    assert not other.ok
