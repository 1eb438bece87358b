"""Helpers that build the world's mini repositories for real (clone, cmake, ninja, pip)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from tests.support.venvs import fresh_venv

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing has it from Python 3.11; only mypy reads it here

# The LLVM flags of Triton's scripts/build-llvm-project.sh (facts §1.5), minus the compiler choice.
TRITON_LLVM_FLAGS = [
    "-DLLVM_ENABLE_ASSERTIONS=ON",
    "-DLLVM_OPTIMIZED_TABLEGEN=ON",
    "-DMLIR_ENABLE_BINDINGS_PYTHON=OFF",
    "-DLLVM_ENABLE_ZSTD=OFF",
    "-DCMAKE_EXPORT_COMPILE_COMMANDS=1",
    "-DLLVM_BUILD_UTILS=ON",
    "-DLLVM_INSTALL_UTILS=ON",
]

# Build requirements of each era, installed before `pip install --no-build-isolation`.
BUILD_REQUIREMENTS = {
    "pybind11": ["setuptools>=64", "wheel", "pybind11>=2.13.1"],
    "nanobind": ["setuptools>=64", "wheel", "nanobind==2.10.2"],
}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment with no Triton/LLVM build variables leaking in from outside, plus `extra`."""
    drop = ("TRITON_", "LLVM_", "MAX_JOBS", "DEBUG", "REL_WITH_DEB_INFO", "PYBIND11_", "VIRTUAL_ENV", "MAKEFLAGS")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop) and not k.startswith("GIT_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(
    args: list[str | Path], cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing output; on failure (with check) raise with the output attached."""
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc


def clone_at(url: str, dest: Path, commit: str) -> Path:
    """Clone `url` into `dest` and check out `commit` detached (fetched by sha, as tritondev does)."""
    run(["git", "clone", "-q", "--no-checkout", url, dest])
    run(["git", "-C", dest, "fetch", "-q", "origin", commit])
    run(["git", "-C", dest, "checkout", "-q", "--detach", commit])
    return dest


@dataclass(frozen=True)
class LLVMBuild:
    source: Path  # the llvm-project checkout
    build: Path  # the build tree: usable as LLVM_SYSPATH
    commit: str


def configure_llvm(
    source: Path,
    build: Path,
    *,
    compiler: str = "clang",
    projects: str = "mlir;llvm;lld;clang",  # clang: Triton 3.7+ needs ${LLVM_SYSPATH}/bin/clang++
    targets: str = "host;NVPTX;AMDGPU",
    build_type: str = "Release",
    ccache: bool = True,
    extra: list[str] | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    args: list[str | Path] = [
        "cmake", "-G", "Ninja", "-S", source / "llvm", "-B", build,
        f"-DCMAKE_BUILD_TYPE={build_type}",
        f"-DLLVM_ENABLE_PROJECTS={projects}",
        f"-DLLVM_TARGETS_TO_BUILD={targets}",
        f"-DLLVM_CCACHE_BUILD={'ON' if ccache else 'OFF'}",
        *TRITON_LLVM_FLAGS,
    ]  # fmt: skip
    if compiler == "clang":
        args += ["-DCMAKE_C_COMPILER=clang", "-DCMAKE_CXX_COMPILER=clang++", "-DLLVM_ENABLE_LLD=ON"]
    else:
        args += ["-DCMAKE_C_COMPILER=gcc", "-DCMAKE_CXX_COMPILER=g++"]
    args += extra or []
    return run(args, env=env, check=check)


class ConfigureOptions(TypedDict, total=False):
    """configure_llvm's options that build_llvm passes on."""

    compiler: str
    projects: str
    targets: str
    build_type: str
    ccache: bool
    extra: list[str] | None
    check: bool


def build_llvm(
    source: Path, build: Path, env: dict[str, str] | None = None, **configure: Unpack[ConfigureOptions]
) -> LLVMBuild:
    """Configure and build the mini LLVM in `source` into `build`.

    CCACHE_BASEDIR defaults to the checkout's parent, so that builds of other checkouts laid out the
    same way (<dir>/llvm-project/build) share ccache hits.
    """
    env = dict(env or clean_env())
    env.setdefault("CCACHE_BASEDIR", str(source.parent))
    configure_llvm(source, build, env=env, **configure)
    run(["ninja", "-C", build], env=env)
    commit = run(["git", "-C", source, "rev-parse", "HEAD"]).stdout.strip()
    return LLVMBuild(source, build, commit)


def make_build_venv(path: Path, bindings: str) -> Path:
    """A fresh venv with what `pip install --no-build-isolation` of the mini Triton needs."""
    py = fresh_venv(path)
    run([py, "-m", "pip", "install", "-q", *BUILD_REQUIREMENTS[bindings]])
    return py
