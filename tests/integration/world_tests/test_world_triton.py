"""The mini Triton really builds and installs against the mini LLVM, and fails the way Triton does."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest

from tests.support.venvs import fresh_venv
from tests.world import World
from tests.world.build import LLVMBuild, clean_env, clone_at, make_build_venv, run
from tests.world.downloads import json_header

CMAKE_DIR = f"cmake.{sysconfig.get_platform()}-cpython-{sysconfig.get_python_version()}"


def installed(py: Path) -> dict[str, object]:
    """What the installed triton says about itself (run in that venv, from a neutral directory)."""
    code = (
        "import json, importlib.metadata as m, os, triton\n"
        "from triton._C import libtriton\n"
        "pkg = os.path.dirname(triton.__file__)\n"
        "print(json.dumps({'version': triton.__version__, 'dist': m.version('triton'), 'file': triton.__file__,"
        " 'llvm_commit': triton.llvm_commit(), 'build_type': libtriton.build_type(),"
        " 'backends': libtriton.backends(), 'targets': libtriton.llvm_targets(),"
        " 'commit_txt': open(os.path.join(pkg, '_C', 'llvm-commit.txt')).read().strip(),"
        " 'filecheck': os.access(os.path.join(pkg, 'FileCheck'), os.X_OK),"
        " 'llir': triton.compile_vector_add(block_size=64)['llir']}))"
    )
    facts: dict[str, object] = json.loads(run([py, "-c", code], cwd=py.parent).stdout)
    return facts


@pytest.fixture(scope="module")
def checkouts(world: World, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("triton")


def checkout(world: World, root: Path, label: str) -> Path:
    return clone_at(world.url("triton"), root / label, world.triton_commits[label])


@pytest.mark.slow
def test_root_json_editable_with_clang_lld(world: World, mini_llvm: LLVMBuild, checkouts: Path, tmp_path: Path) -> None:
    src = checkout(world, checkouts, "root-json")
    py = make_build_venv(tmp_path / "venv", "nanobind")
    env = clean_env(
        LLVM_SYSPATH=str(mini_llvm.build), TRITON_BUILD_WITH_CLANG_LLD="1", MAX_JOBS="2",
        TRITON_PARALLEL_LINK_JOBS="1", TRITON_HOME=str(tmp_path / "home"),
    )  # fmt: skip
    run([py, "-m", "pip", "install", "--no-build-isolation", "-e", src], env=env)

    info = installed(py)
    sha8 = world.triton_commits["root-json"][:8]
    assert info["version"] == info["dist"] == f"3.8.0+git{sha8}"
    assert info["file"] == str(src / "python/triton/__init__.py")  # editable: the checkout itself
    assert info["llvm_commit"] == info["commit_txt"] == world.llvm_commit
    assert info["build_type"] == "TritonRelBuildWithAsserts" and info["backends"] == ["nvidia", "amd"]
    assert info["filecheck"] and "define void @add_kernel" in str(info["llir"])

    build = src / "build" / CMAKE_DIR
    cache = (build / "CMakeCache.txt").read_text()
    assert "CMAKE_CXX_COMPILER:STRING=/usr/bin/clang++" in cache or "CMAKE_CXX_COMPILER:STRING=clang++" in cache
    assert "CMAKE_SHARED_LINKER_FLAGS:STRING=-fuse-ld=lld" in cache
    assert "CMAKE_CXX_COMPILER_LAUNCHER:STRING=" in cache and "ccache" in cache  # ccache is ON by default
    assert "pool = link_job_pool" in (build / "build.ninja").read_text()
    link = src / "compile_commands.json"
    assert link.is_symlink() and link.resolve() == (build / "compile_commands.json").resolve()
    assert any(e["file"].endswith("Ops.cpp") for e in json.loads(link.read_text()))
    # Build outputs are ignored: the checkout stays clean (tools check this before reusing it).
    assert run(["git", "-C", src, "status", "--porcelain"]).stdout == ""


def test_python_dir_plain_install_with_gcc_debug(
    world: World, mini_llvm: LLVMBuild, checkouts: Path, tmp_path: Path
) -> None:
    src = checkout(world, checkouts, "python-dir")
    py = make_build_venv(tmp_path / "venv", "pybind11")
    env = clean_env(LLVM_SYSPATH=str(mini_llvm.build), DEBUG="1", MAX_JOBS="2", TRITON_HOME=str(tmp_path / "home"))
    run([py, "-m", "pip", "install", "--no-build-isolation", src / "python"], env=env)

    info = installed(py)
    sha8 = world.triton_commits["python-dir"][:8]
    assert info["version"] == info["dist"] == f"3.3.0+git{sha8}"
    assert "site-packages" in str(info["file"])  # a real install, not a link to the checkout
    assert info["llvm_commit"] == world.llvm_commit and info["build_type"] == "Debug"
    assert not info["filecheck"]  # FileCheck travels with the package from 3.4 on
    build = src / "python" / "build" / CMAKE_DIR  # the ≤ 3.3 layout keeps its build dir under python/
    cache = (build / "CMakeCache.txt").read_text()
    assert "CMAKE_BUILD_TYPE:STRING=Debug" in cache
    # python/setup.py passes LLVM_INCLUDE_DIRS and LLVM_LIBRARY_DIR, never LLVM_SYSPATH (3.0-3.3).
    assert f"LLVM_LIBRARY_DIR:UNINITIALIZED={mini_llvm.build}/lib" in cache and "LLVM_SYSPATH" not in cache
    compiler = next(build.glob("CMakeFiles/*/CMakeCXXCompiler.cmake")).read_text()
    assert 'set(CMAKE_CXX_COMPILER_ID "GNU")' in compiler  # no TRITON_BUILD_WITH_CLANG_LLD: the default c++


@pytest.mark.slow
def test_release_branch_isolated_install(world: World, mini_llvm: LLVMBuild, checkouts: Path, tmp_path: Path) -> None:
    # On a branch named release/*, the version has no +git suffix; a plain `pip install .` builds in an
    # isolated environment (pip fetches setuptools, wheel and pybind11 from the index).
    src = clone_at(world.url("triton"), checkouts / "release-3.7", world.triton_branches["release/3.7.x"])
    run(["git", "-C", src, "checkout", "-q", "release/3.7.x"])
    fresh_venv(tmp_path / "venv")
    py = tmp_path / "venv/bin/python"
    env = clean_env(
        LLVM_SYSPATH=str(mini_llvm.build), REL_WITH_DEB_INFO="1", TRITON_BUILD_WITH_CCACHE="0",
        TRITON_HOME=str(tmp_path / "home"),
    )  # fmt: skip
    run([py, "-m", "pip", "install", src], env=env)
    info = installed(py)
    assert info["version"] == info["dist"] == "3.7.1"
    assert info["build_type"] == "RelWithDebInfo" and info["llvm_commit"] == world.llvm_commit
    cache = (src / "build" / CMAKE_DIR / "CMakeCache.txt").read_text()
    assert "ccache" not in cache.split("CMAKE_CXX_COMPILER_LAUNCHER", 1)[-1].splitlines()[0]


# --------------------------------------------------------------------------------------------------
# Failures


@pytest.fixture(scope="module")
def failing_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("failing") / "venv"
    py = make_build_venv(venv, "nanobind")
    run([py, "-m", "pip", "install", "-q", "pybind11>=2.13.1"])
    return py


def pip_fails(py: Path, target: Path, env: dict[str, str], editable: bool = True) -> str:
    args: list[str | Path] = [
        py,
        "-m",
        "pip",
        "install",
        "-v",
        "--no-build-isolation",
        *(["-e"] if editable else []),
        target,
    ]
    proc = run(args, env=env, check=False)
    assert proc.returncode != 0
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("label", ["python-dir", "root-json"])
def test_offline_without_llvm_syspath(world: World, failing_venv: Path, tmp_path: Path, label: str) -> None:
    src = clone_at(world.url("triton"), tmp_path / "triton", world.triton_commits[label])
    target = src / "python" if label == "python-dir" else src
    out = pip_fails(failing_venv, target, clean_env(TRITON_OFFLINE_BUILD="1", TRITON_HOME=str(tmp_path / "home")))
    assert "Requested an offline build but LLVM_SYSPATH is not set" in out
    assert "downloading" not in out


@pytest.mark.parametrize(("label", "suffix"), [("root-hash", ""), ("root-json", "-1")])
def test_online_without_llvm_syspath_tries_the_prebuilt_llvm(
    world: World, failing_venv: Path, tmp_path: Path, label: str, suffix: str
) -> None:
    src = clone_at(world.url("triton"), tmp_path / "triton", world.triton_commits[label])
    home = tmp_path / "home"
    # No network here (the host has no route to the blob store): the download must fail quickly.
    out = pip_fails(failing_venv, src, clean_env(TRITON_HOME=str(home), TRITON_LLVM_SYSTEM_SUFFIX="ubuntu-x64"))
    url = f"https://oaitriton.blob.core.windows.net/public/llvm-builds/llvm-{world.llvm_commit[:8]}-ubuntu-x64{suffix}.tar.gz"
    assert f"downloading and extracting {url}" in out
    assert not list((home / ".triton" / "llvm").glob("*/version.txt"))


def test_llvm_syspath_without_mlir(world: World, failing_venv: Path, tmp_path: Path) -> None:
    src = clone_at(world.url("triton"), tmp_path / "triton", world.triton_commits["root-json"])
    llvm = tmp_path / "llvm-without-mlir"
    (llvm / "lib" / "cmake" / "llvm").mkdir(parents=True)
    out = pip_fails(failing_venv, src, clean_env(LLVM_SYSPATH=str(llvm), TRITON_HOME=str(tmp_path / "home")))
    flat = " ".join(out.split())
    assert 'Could not find a package configuration file provided by "MLIR"' in flat
    assert "MLIRConfig.cmake" in flat and '"MLIR_DIR"' in flat


def test_llvm_at_another_commit_fails_to_compile(
    world: World, mini_llvm: LLVMBuild, failing_venv: Path, tmp_path: Path
) -> None:
    # The LLVM-bump commit is written against the other LLVM's API; built against the pinned LLVM
    # it does not compile, exactly how a real Triton fails on an LLVM at the wrong commit.
    label = "other-llvm"
    sha = world.triton_commits[label]
    assert world.triton_llvm_pins[sha] == world.llvm_commits["other"] != mini_llvm.commit
    src = clone_at(world.url("triton"), tmp_path / "triton", sha)
    env = clean_env(LLVM_SYSPATH=str(mini_llvm.build), MAX_JOBS="2", TRITON_HOME=str(tmp_path / "home"))
    out = pip_fails(failing_venv, src, env)
    assert "lib/Dialect/Triton/IR/Ops.cpp" in out and "error:" in out
    assert "create" in out


@pytest.mark.slow
def test_an_offline_build_leaves_out_the_tools_triton_looks_for(
    world: World, mini_llvm: LLVMBuild, checkouts: Path, tmp_path: Path
) -> None:
    """TRITON_OFFLINE_BUILD: download_and_copy copies no ptxas, so the installed Triton finds none
    unless TRITON_PTXAS_PATH is set where it runs (the 3.4-3.6 era: downloads in CMakeBuild.run())."""
    src = checkout(world, checkouts, "root-setup")
    py = make_build_venv(tmp_path / "venv", "pybind11")
    json_root = tmp_path / "json"
    (json_root / "include" / "nlohmann").mkdir(parents=True)
    (json_root / "include" / "nlohmann" / "json.hpp").write_bytes(json_header())
    env = clean_env(
        LLVM_SYSPATH=str(mini_llvm.build),
        JSON_SYSPATH=str(json_root),
        TRITON_OFFLINE_BUILD="1",
        MAX_JOBS="2",
        TRITON_HOME=str(tmp_path / "home"),
    )
    out = run([py, "-m", "pip", "install", "-v", "--no-build-isolation", "-e", src], env=env).stdout
    assert "downloading" not in out and not (src / "third_party/nvidia/backend/bin").exists()
    lookup = (
        "from triton import knobs\ntry:\n    print(knobs.nvidia.ptxas.path)\nexcept RuntimeError as e:\n    print(e)\n"
    )
    assert run([py, "-c", lookup], cwd=tmp_path, env=clean_env()).stdout.strip() == "Cannot find ptxas"
    ptxas = tmp_path / "fake-ptxas"
    ptxas.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    ptxas.chmod(0o755)
    found = run([py, "-c", lookup], cwd=tmp_path, env=clean_env(TRITON_PTXAS_PATH=str(ptxas))).stdout.strip()
    assert found == str(ptxas)  # only where the variable is set
