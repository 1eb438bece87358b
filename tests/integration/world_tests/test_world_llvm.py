"""The mini llvm-project really configures and builds, with the flags and products Triton relies on."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.world import World
from tests.world.build import LLVMBuild, clean_env, clone_at, configure_llvm, run

DISTRIBUTION = (
    "llvm-headers;llvm-libraries;cmake-exports;mlir-headers;mlir-libraries;mlir-cmake-exports;"
    "lld-headers;lld-libraries;lld-cmake-exports;FileCheck;not;split-file;llc;opt;llvm-config;"
    "mlir-tblgen;mlir-translate"
)


def ccache_stats(env: dict[str, str]) -> tuple[int, int]:
    """(hits, misses) of the ccache in env["CCACHE_DIR"]."""
    out = run(["ccache", "--print-stats"], env=env).stdout
    stats = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    hits = int(stats.get("direct_cache_hit", 0)) + int(stats.get("preprocessed_cache_hit", 0))
    return hits, int(stats.get("cache_miss", 0))


@pytest.fixture(scope="module")
def llvm_src(world: World, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_at(world.url("llvm-project"), tmp_path_factory.mktemp("llvm") / "llvm-project", world.llvm_commit)


def test_clang_lld_ccache_build_and_products(world: World, llvm_src: Path, tmp_path: Path) -> None:
    env = clean_env(CCACHE_DIR=str(tmp_path / "ccache"))
    build = tmp_path / "build"
    configure_llvm(
        llvm_src, build, env=env,
        extra=[f"-DLLVM_DISTRIBUTION_COMPONENTS={DISTRIBUTION}", f"-DCMAKE_INSTALL_PREFIX={tmp_path / 'install'}",
               "-DLLVM_PARALLEL_LINK_JOBS=1", "-DLLVM_USE_SPLIT_DWARF=ON"],
    )  # fmt: skip
    start = time.monotonic()
    run(["ninja", "-C", build], env=env)
    cold = time.monotonic() - start

    # What Triton needs from the tree.
    for rel in ("lib/cmake/mlir/MLIRConfig.cmake", "lib/cmake/llvm/LLVMConfig.cmake", "lib/libMLIRIR.a",
                "lib/libLLVMNVPTXCodeGen.a", "lib/libLLVMAMDGPUCodeGen.a", "bin/FileCheck", "bin/llvm-config",
                "bin/mlir-tblgen", "include/llvm/Support/VCSRevision.h", "compile_commands.json"):  # fmt: skip
        assert (build / rel).exists(), rel
    config = (build / "lib/cmake/llvm/LLVMConfig.cmake").read_text()
    assert f'set(LLVM_VCS_REVISION "{world.llvm_commit}")' in config
    assert "set(LLVM_BUILD_TYPE Release)" in config and "set(LLVM_ENABLE_ASSERTIONS ON)" in config
    assert 'set(LLVM_TARGETS_TO_BUILD "X86;NVPTX;AMDGPU")' in config
    assert 'set(LLVM_ENABLE_PROJECTS "mlir;lld;clang")' in config
    # Real compiler output: clang, linked with lld, built through ccache.
    assert "clang++" in (build / "CMakeCache.txt").read_text()
    assert "-fuse-ld=lld" in (build / "build.ninja").read_text()
    assert "ccache" in (build / "build.ninja").read_text()
    comment = run(["readelf", "-p", ".comment", build / "bin/FileCheck"]).stdout
    assert "LLD" in comment and "clang version" in comment, comment

    llvm_config = build / "bin/llvm-config"
    assert run([llvm_config, "--vcs-revision"]).stdout.strip() == world.llvm_commit
    assert run([llvm_config, "--version"]).stdout.strip() == "19.1.0git"
    assert run([llvm_config, "--build-mode"]).stdout.strip() == "Release"
    assert run([llvm_config, "--assertion-mode"]).stdout.strip() == "ON"
    assert run([llvm_config, "--targets-built"]).stdout.split() == ["X86", "NVPTX", "AMDGPU"]
    assert Path(run([llvm_config, "--prefix"]).stdout.strip()) == build

    # FileCheck is a real checker.
    check = tmp_path / "check.mlir"
    check.write_text("// CHECK: tt.func\n// CHECK-NEXT: tt.load\n// CHECK-NOT: tt.store\n")
    good = subprocess.run(
        [build / "bin/FileCheck", check], input="x tt.func\ny tt.load\n", text=True, capture_output=True
    )
    assert good.returncode == 0, good.stderr
    bad = subprocess.run(
        [build / "bin/FileCheck", check], input="tt.func\nother\ntt.load\n", text=True, capture_output=True
    )
    assert bad.returncode == 1 and "CHECK-NEXT: expected string not found" in bad.stderr

    # install-distribution installs exactly the listed components, relocatably.
    run(["ninja", "-C", build, "install-distribution"], env=env)
    install = tmp_path / "install"
    assert (install / "lib/cmake/mlir/MLIRConfig.cmake").is_file() and (install / "bin/FileCheck").is_file()
    assert not (install / "bin/clang").exists()
    assert run([install / "bin/llvm-config", "--vcs-revision"]).stdout.strip() == world.llvm_commit
    assert Path(run([install / "bin/llvm-config", "--includedir"]).stdout.strip()) == install / "include"

    # ccache: a clean rebuild compiles nothing new and is faster.
    hits_before, misses = ccache_stats(env)
    assert misses >= 20  # enough translation units to measure
    run(["ninja", "-C", build, "-t", "clean"], env=env)
    start = time.monotonic()
    run(["ninja", "-C", build], env=env)
    warm = time.monotonic() - start
    hits_after, misses_after = ccache_stats(env)
    assert misses_after == misses and hits_after - hits_before >= misses
    print(f"mini LLVM build: cold {cold:.1f}s, ccache-warm rebuild {warm:.1f}s, {misses} translation units")
    assert warm < cold


def test_gcc_build_without_mlir(llvm_src: Path, tmp_path: Path) -> None:
    build = tmp_path / "build"
    configure_llvm(llvm_src, build, compiler="gcc", projects="llvm", targets="X86", ccache=False,
                   extra=["-DLLVM_BUILD_UTILS=OFF"])  # fmt: skip
    run(["ninja", "-C", build])
    assert "g++" in (build / "CMakeCache.txt").read_text()
    assert (build / "lib/cmake/llvm/LLVMConfig.cmake").is_file()
    assert not (build / "lib/cmake/mlir").exists()  # no mlir project, no MLIRConfig.cmake
    assert not (build / "bin/FileCheck").exists()  # LLVM_BUILD_UTILS=OFF: not built by default
    assert run([build / "bin/llvm-config", "--targets-built"]).stdout.split() == ["X86"]
    run(["ninja", "-C", build, "FileCheck"])  # ... but the target exists
    assert (build / "bin/FileCheck").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-UCMAKE_BUILD_TYPE"], "No build type selected"),
        (["-DLLVM_ENABLE_PROJECTS=mlir;flang-typo"], "flang-typo isn't a known project"),
        (["-DLLVM_ENABLE_PROJECTS=mlir;polly"], "LLVM_ENABLE_PROJECTS requests polly but directory not found"),
        (["-DLLVM_TARGETS_TO_BUILD=X86;Sparc"], "The target `Sparc' does not exist."),
        (["-DLLVM_ENABLE_PROJECTS=mlir;llvm;lld", "-DLLVM_DISTRIBUTION_COMPONENTS=llvm-headers;clang"],
         "Specified distribution component 'clang' doesn't have an install target"),
    ],
)  # fmt: skip
def test_configure_errors(llvm_src: Path, tmp_path: Path, args: list[str], message: str) -> None:
    build = tmp_path / "build"
    if args == ["-UCMAKE_BUILD_TYPE"]:
        proc = run(["cmake", "-G", "Ninja", "-S", llvm_src / "llvm", "-B", build], check=False)
    else:
        proc = configure_llvm(llvm_src, build, compiler="gcc", ccache=False, extra=args, check=False)
    assert proc.returncode != 0
    assert message in re.sub(r"\s+", " ", proc.stderr), proc.stderr


@pytest.mark.slow
def test_session_mini_llvm(mini_llvm: LLVMBuild, world: World) -> None:
    assert mini_llvm.commit == world.llvm_commit
    assert (mini_llvm.build / "lib/cmake/mlir/MLIRConfig.cmake").is_file()
