"""The test world's mini Triton: one commit per layout era and release, from the templates."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.world import downloads
from tests.world.gitrepo import TEMPLATES, Git, clear_tree, copy_template, init_repo, write_file


@dataclass(frozen=True)
class TritonState:
    era: str  # python-dir | root-setup | root-hash | root-json (triton-2: a 2.x commit, no template)
    version: str
    llvm: str
    llvm_bumped: bool = False  # written against the "other" LLVM's API
    # cmake/llvm-build-info.json: (llvm_hash, repository or None); None: no such file.
    build_info: tuple[str, str | None] | None = None
    amd_llvm: bool = False  # cmake/amd-llvm-info.json (newest main)
    # scripts/build-llvm-project.sh's LLVM_PROJECT_URL default.
    llvm_project_url: str = "https://github.com/llvm/llvm-project"

    @property
    def version_key(self) -> tuple[int, int]:
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)


def era_flags(state: TritonState) -> dict[str, bool]:
    """Which era-dependent blocks (`%%IF NAME%%`) of the Triton templates a commit keeps.

    Each follows upstream's files at the era's reference commit (docs/test-world.md, conformance table).
    """
    in_python = state.era == "python-dir"
    cmake_era = state.era in ("root-hash", "root-json")
    version = state.version_key
    return {
        "IN_PYTHON_DIR": in_python,
        "DOWNLOADS_AT_IMPORT": in_python,  # module-level download_and_copy calls (<= 3.3)
        "DOWNLOADS_AT_RUN": state.era == "root-setup",  # CMakeBuild.run() (3.4-3.6)
        "DOWNLOADS_IN_CMAKE": cmake_era,  # CMake runs build_helpers.py (3.7+)
        "OFFLINE_FLAG": version >= (3, 2),
        "BUILD_DIR_ENV": not in_python and version >= (3, 5),
        "PTXAS_BLACKWELL": version == (3, 3) or version >= (3, 6),
        "ENV_NAME_FIXED": version >= (3, 7),
        "AMD_CODEGEN": state.amd_llvm,
        "PASSES_LLVM_SYSPATH": state.era == "root-setup",
        "REQUIRES_LLVM_SYSPATH": not in_python,
        "PASSES_WHEEL_DIR": not in_python,
        "PASSES_VERSION": state.era == "root-json",
        "GIT_SUFFIX": version >= (3, 2),
        "NANOBIND": state.era == "root-json",
        "PYBIND11_CMAKE_DIR": version >= (3, 3),  # -Dpybind11_DIR; -DPYBIND11_INCLUDE_DIR only before
        "JSON_PIN": state.era == "root-json",
        "TRITON_HOME_ENV": version >= (3, 2),  # #4152 is in neither the 3.0 nor the 3.1 branch
        "LLD_PACKAGE": version >= (3, 5),  # third_party/amd finds lld's package (#7548)
        "GSAN_CLANGXX": version >= (3, 7),  # third_party/nvidia finds ${LLVM_SYSPATH}/bin/clang++ (#9568)
        "GLUON": version >= (3, 4),  # the Makefile's test-gluon and NUM_PROCS (#7009, 3.4)
        "UNIT_TESTS_TARGET": version >= (3, 3),  # check-triton-unit-tests (#5150, 8b29bb75); before: ctest only
        "PYTEST_FORKED": (3, 3) <= version < (3, 8),  # pytest-forked in python/test-requirements.txt
        "MAKE_DISTRIBUTED": version >= (3, 5),  # test-distributed, test-microbenchmark (#7352, #7849)
        "MAKE_TB_SHORT": version >= (3, 6),  # --tb=short (#8440); test-nogpu runs two pytest files (#8771)
        "MAKE_ROOT_DIR": version >= (3, 7),  # ROOT_DIR, PYTHONPATH=... BUILD_DIR, no -s, test-gsan (6d2e38bf)
        "MAKE_PLUGINS_TARGET": version >= (3, 8),  # test-plugins, TRITON_KERNELS_PATH := ...$(if ...) (5838701f)
        "MAKE_TEST_RUNNER": state.amd_llvm,  # main after #11098 (df7fa7bd): triton._test_runner, NUM_GPUS
        "CCACHE_OPTION": version >= (3, 3),  # CMake's TRITON_BUILD_WITH_CCACHE and both launchers (#5076)
        "CCACHE_FROM_SETUP_PY": version < (3, 3),  # setup.py: -DCMAKE_CXX_COMPILER_LAUNCHER=ccache only
        "LINK_JOBS": version >= (3, 3),  # TRITON_PARALLEL_LINK_JOBS (#5212)
        "PASSTHROUGH_LIST": version >= (3, 3),  # setup.py's passthrough_args (before: -DTRITON_BUILD_PROTON=OFF)
        "APPEND_CMAKE_ARGS": version >= (3, 2),  # TRITON_APPEND_CMAKE_ARGS (#4304, not in the 3.1 branch)
        "PYTHON_INCLUDE_DIRS": version < (3, 3),  # -DPYTHON_INCLUDE_DIRS (until #5271)
        "PYBIND11_DOWNLOAD": version < (3, 2),  # pybind11 downloaded into ~/.triton (until #4450)
        "CXX_FLAGS_FROM_C": version < (3, 2),  # set(CMAKE_CXX_FLAGS "${CMAKE_C_FLAGS} ...")
        "COMPILE_COMMANDS_LINK": version >= (3, 5),  # setup.py links compile_commands.json (#7305)
        "GSAN_CUDA_PATH": version == (3, 7),  # the GSan runtime with --cuda-path=<backend> (3.7)
        "GSAN_NOCUDAINC": version >= (3, 8),  # ... with -nocudainc and -I<TRITON_CUDA*_PATH> (3.8 on)
        "BUILD_WITH_O1": version >= (3, 2),  # get_build_type's TRITON_BUILD_WITH_O1
        "JOBSERVER_SKIP": state.amd_llvm,  # no -j under a make jobserver (#10996, newest main only)
    }


def era_substitutions(state: TritonState) -> dict[str, str]:
    in_python = state.era == "python-dir"
    version = state.version_key
    passthrough = ["TRITON_BUILD_PROTON", "TRITON_BUILD_WITH_CCACHE", "TRITON_PARALLEL_LINK_JOBS"]
    if state.era in ("root-hash", "root-json"):  # since the downloads moved into CMake (3.7): setup.py @ 6d2e38bf
        passthrough += [
            "TRITON_OFFLINE_BUILD",
            "TRITON_LLVM_SYSTEM_SUFFIX",
            "LLVM_SYSPATH",
            "JSON_SYSPATH",
            "TRITON_CUDACRT_PATH",
            "TRITON_CUDART_PATH",
            "TRITON_CUOBJDUMP_PATH",
            "TRITON_CUPTI_INCLUDE_PATH",
            "TRITON_CUPTI_LIB_PATH",
            "TRITON_CUPTI_LIB_BLACKWELL_PATH",
            "TRITON_NVDISASM_PATH",
            "TRITON_PTXAS_PATH",
            "TRITON_PTXAS_BLACKWELL_PATH",
        ]
    if state.amd_llvm:
        passthrough.append("TRITON_AMD_CODEGEN_PATH")
    return {
        "BLACKWELL_VARIABLE": "TRITON_PTXAS_PATH" if version == (3, 3) else "TRITON_PTXAS_BLACKWELL_PATH",
        "CMAKE_FLOOR": "3, 18" if in_python else "3, 20",
        "CMAKE_FLOOR_TEXT": "3.18.0" if in_python else "3.20",
        "CMAKE_MINIMUM": "3.18" if in_python else "3.20",
        "BUILD_ROOT": "python/build" if in_python else "build",
        "PASSTHROUGH": ", ".join(f'"{p}"' for p in passthrough),
    }


def triton_tree(repo: Path, state: TritonState) -> None:
    """Write the whole tree of one Triton commit for its layout era."""
    clear_tree(repo)
    in_python = state.era == "python-dir"
    json_pin = state.era == "root-json"
    subst = {
        "TRITON_VERSION": state.version,
        "BINDINGS": "nanobind" if json_pin else "pybind11",
        "BINDINGS_REQ": "nanobind==2.10.2" if json_pin else "pybind11>=2.13.1",
        "LLVM_PIN_FILE": "cmake/llvm-info.json" if json_pin else "cmake/llvm-hash.txt",
        "LLVM_HASH_CMD": (
            """$(jq -r '.llvm_hash' "$REPO_ROOT/cmake/llvm-info.json")"""
            if json_pin
            else """$(cat "$REPO_ROOT/cmake/llvm-hash.txt")"""
        ),
        "LLVM_PROJECT_URL": state.llvm_project_url,
        "HELPERS_DIR": "os.curdir" if in_python else '"python"',
        "PACKAGE_DIR": "" if in_python else '\n    package_dir={"": "python"},',
        "SETUP_DIR": "python" if in_python else ".",
        **era_substitutions(state),
    }
    flags = era_flags(state)
    copy_template(TEMPLATES / "triton" / "common", repo, subst, flags)
    if state.llvm_bumped:
        # The LLVM bump commit adapts Triton's C++ to the other LLVM's API, as real bumps do.
        copy_template(TEMPLATES / "triton-llvm-bump", repo, subst, flags)
    write_file(repo, "cmake/nvidia-toolchain-version.json", json.dumps(downloads.NVIDIA_VERSIONS, indent=2) + "\n")
    if flags["PYBIND11_DOWNLOAD"]:
        write_file(repo, "cmake/pybind11-version.txt", downloads.PYBIND11_VERSION + "\n")
    if in_python:
        # <= 3.3: setup.py lives in python/, and scripts/build-llvm-project.sh does not exist yet;
        # the NVIDIA tools are found by _path_to_binary in the backend's compiler.py (no knobs.py).
        # pip reads the pyproject.toml next to setup.py; the root one only configures tools.
        (repo / "setup.py").rename(repo / "python" / "setup.py")
        (repo / "pyproject.toml").rename(repo / "python" / "pyproject.toml")
        write_file(repo, "pyproject.toml", '[tool.yapf]\nbased_on_style = "pep8"\ncolumn_limit = 120\n')
        (repo / "scripts" / "build-llvm-project.sh").unlink()
        (repo / "python" / "triton" / "knobs.py").unlink()
    if state.version_key < (3, 7):
        # The GSan runtime (python/triton/experimental/gsan, #9568) came with 3.7.
        shutil.rmtree(repo / "python" / "triton" / "experimental")
    if state.version_key < (3, 3):
        # The Makefile (#5516, January 2025) and utils/generate-test-checks.py (#5289, December 2024)
        # came after the 3.2 branch: 3.0 and 3.1 have neither.
        (repo / "Makefile").unlink()
        shutil.rmtree(repo / "utils")
    if json_pin:
        info = {
            "llvm_hash": state.llvm,
            "build_number": 1,
            "sha256sum": {
                "ubuntu-x64": "a3c1b2" + "0" * 58,
                "ubuntu-arm64": "b4d2c3" + "0" * 58,
                "almalinux-x64": "c5e3d4" + "0" * 58,
                "almalinux-arm64": "d6f4e5" + "0" * 58,
                "macos-x64": "e7a5f6" + "0" * 58,
                "macos-arm64": "f8b6a7" + "0" * 58,
            },
        }
        write_file(repo, "cmake/llvm-info.json", json.dumps(info, indent=2) + "\n")
    else:
        write_file(repo, "cmake/llvm-hash.txt", state.llvm + "\n")
    if state.build_info is not None:
        build_hash, repository = state.build_info
        build: dict[str, object] = {"llvm_hash": build_hash}
        if repository is not None:
            build["repository"] = repository
        build["build_number"] = 1
        write_file(repo, "cmake/llvm-build-info.json", json.dumps(build, indent=2) + "\n")
    if state.amd_llvm:
        amd = {
            "llvm_hash": downloads.AMD_LLVM_HASH,
            "build_number": downloads.AMD_LLVM_BUILD_NUMBER,
            "sha256sum": downloads.amd_codegen_sha256(),
        }
        write_file(repo, "cmake/amd-llvm-info.json", json.dumps(amd, indent=2) + "\n")
        amd_build = {"llvm_hash": downloads.AMD_LLVM_HASH, "repository": "ROCm/llvm-project", "build_number": 1}
        write_file(repo, "cmake/amd-llvm-build-info.json", json.dumps(amd_build, indent=2) + "\n")


def triton2_commit(
    git: Git,
    repo: Path,
    commits: dict[str, str],
    states: dict[str, TritonState],
    label: str,
    version: str,
    llvm_hash: str | None,
    message: str,
) -> None:
    """A Triton 2.x commit: the files tritondev reads to tell its layout (no stub of its build)."""
    clear_tree(repo)
    write_file(repo, "README.md", f"# Triton {version}\n")
    write_file(repo, "CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(triton)\n")
    write_file(repo, "cmake/FindLLVM.cmake", "# Triton 2.x finds LLVM itself\n")
    if llvm_hash is None:
        package = (
            "    name = f'llvm+mlir-14.0.6-x86_64-{system_suffix}-{release_suffix}'\n"
            '    url = f"https://github.com/ptillet/triton-llvm-releases/releases/download/llvm-14.0.6-f28c006a5895'
            '/{name}.tar.xz"\n'
        )
        suffix = ""
    else:
        write_file(repo, "cmake/llvm-hash.txt", llvm_hash + "\n")
        package = (
            '    llvm_hash_file = open("../cmake/llvm-hash.txt", "r")\n    rev = llvm_hash_file.read(8)\n'
            '    name = f"llvm-{rev}-{system_suffix}"\n'
            '    url = f"https://tritonlang.blob.core.windows.net/llvm-builds/{name}.tar.gz"\n'
        )
        suffix = ' + os.environ.get("TRITON_WHEEL_VERSION_SUFFIX", "")'
    write_file(
        repo,
        "python/setup.py",
        (
            "import os\nimport platform\n\nfrom setuptools import setup\n\n\n"
            "def get_llvm_package_info():\n    system_suffix = 'ubuntu-x64'\n    release_suffix = 'release'\n"
            f"{package}    return name, url\n\n\n"
            f'setup(\n    name="triton",\n    version="{version}"{suffix},\n    author="Philippe Tillet",\n)\n'
        ),
    )
    commits[label] = git.commit(message)
    states[commits[label]] = TritonState("triton-2", version, llvm_hash or "")


def build_triton(
    repo: Path, clock: list[int], llvm: dict[str, str]
) -> tuple[dict[str, str], dict[str, TritonState], dict[str, str]]:
    git = init_repo(repo, clock)
    commits: dict[str, str] = {}
    states: dict[str, TritonState] = {}

    def commit(label: str, state: TritonState, message: str, extra: Mapping[str, str] | None = None) -> str:
        triton_tree(repo, state)
        for rel, text in (extra or {}).items():
            write_file(repo, rel, text)
        sha = git.commit(message)
        commits[label] = sha
        states[sha] = state
        return sha

    def release(branch: str, label: str, state: TritonState, note: str) -> None:
        git("checkout", "-q", "-b", branch)
        commit(label, state, f"[BACKPORT] {note}", {"RELEASE_NOTES.md": f"# Triton {state.version}\n\n- {note}\n"})
        git("checkout", "-q", "main")

    pinned = llvm["pinned"]
    # Triton 2.x, what PyTorch 2.0-2.3 pin: python/setup.py names its own LLVM package; 2.0 has no
    # cmake/llvm-hash.txt, 2.3 has one (openai/triton release/2.0.x, release/2.3.x). Each is the tip of
    # its release branch, in main's history.
    triton2_commit(git, repo, commits, states, "release-2.0", "2.0.0", None, "Triton 2.0.0")
    git("branch", "release/2.0.x")
    triton2_commit(git, repo, commits, states, "release-2.3", "2.3.1", pinned, "[release/2.3.x] Triton 2.3.1")
    git("branch", "release/2.3.x")
    commit("python-dir-3.0", TritonState("python-dir", "3.0.0", pinned), "Triton 3.0: setup.py in python/")
    release("release/3.0.x", "release-3.0", TritonState("python-dir", "3.0.0", pinned), "Fix a 3.0 crash")
    commit("python-dir-3.1", TritonState("python-dir", "3.1.0", pinned), "Bump version to 3.1.0")
    release("release/3.1.x", "release-3.1", TritonState("python-dir", "3.1.0", pinned), "Fix a 3.1 crash")
    commit("python-dir-3.2", TritonState("python-dir", "3.2.0", pinned), "Bump version to 3.2.0")
    release("release/3.2.x", "release-3.2", TritonState("python-dir", "3.2.0", pinned), "Fix a 3.2 crash")
    commit("python-dir", TritonState("python-dir", "3.3.0", pinned), "Bump version to 3.3.0")
    release("release/3.3.x", "release-3.3", TritonState("python-dir", "3.3.1", pinned), "Release 3.3.1")
    commit(
        "root-setup-3.4",
        TritonState("root-setup", "3.4.0", pinned),
        "Fix building source distributions (#6381): setup.py moves to the repository root",
    )
    release("release/3.4.x", "release-3.4", TritonState("root-setup", "3.4.0", pinned), "Fix a 3.4 crash")
    commit(
        "root-setup-3.5",
        TritonState("root-setup", "3.5.0", pinned),
        "[AMD] Link lld as a package (#7548); [Build] Symlink compile_commands.json to root dir (#7305)",
    )
    release("release/3.5.x", "release-3.5", TritonState("root-setup", "3.5.0", pinned), "Fix a 3.5 crash")
    commit("root-setup", TritonState("root-setup", "3.6.0", pinned), "Bump version to 3.6.0")
    commit(
        "root-hash",
        TritonState("root-hash", "3.7.0", pinned),
        "[BUILD] Move third party package downloads from setup.py to CMake (#9458)",
    )
    release("release/3.7.x", "release-3.7", TritonState("root-hash", "3.7.1", pinned), "Release 3.7.1")
    # The 3.8 cut: llvm-build-info.json names the same commit, no repository yet.
    release_38 = TritonState("root-json", "3.8.0", pinned, build_info=(pinned, None))
    commit("root-json-3.8", release_38, "Track each LLVM build separately (#10358)")
    release("release/3.8.x", "release-3.8", release_38, "Cherry-pick a 3.8 fix")
    # main: nanobind, the AMD codegen's own LLVM, and an LLVM build workflow that runs ahead of the
    # pin (llvm-build-info.json names a commit of the triton-lang fork that Triton does not use yet).
    commit(
        "root-json",
        TritonState("root-json", "3.8.0", pinned, build_info=(llvm["fork"], "triton-lang/llvm-project"), amd_llvm=True),
        "Switch Python bindings to nanobind (#10283); [BUILD] Build LLVM at the fork's commit first",
    )
    commits["main"] = commits["root-json"]
    # A commit (on its own branch) whose pin names the other LLVM commit: for mismatch tests.
    git("checkout", "-q", "-b", "llvm-bump")
    commit("other-llvm", TritonState("root-json", "3.8.0", llvm["other"], True), "[BUILD] Bump LLVM")
    git("checkout", "-q", "main")
    # A pin that only the triton-lang/llvm-project fork has, as release/3.8.x pinned one (#10719).
    git("checkout", "-q", "-b", "llvm-fork")
    fork_state = TritonState(
        "root-json",
        "3.8.0",
        llvm["fork"],
        build_info=(llvm["fork"], "triton-lang/llvm-project"),
        llvm_project_url="https://github.com/triton-lang/llvm-project",
    )
    commit("llvm-fork", fork_state, "[release/3.8.x] Pin LLVM to the triton-lang/llvm-project backport")
    # release/3.7.x after #10631: cmake/llvm-hash.txt names a commit only the fork has, with no build-info
    # file, and its build script still clones llvm/llvm-project: nothing in the commit names the fork.
    git("checkout", "-q", "-b", "llvm-fork-3.7", commits["release-3.7"])
    commit(
        "llvm-fork-3.7",
        TritonState("root-hash", "3.7.1", llvm["fork"]),
        "[Release/3.7] Pin LLVM to triton-lang/llvm-project's backport (#10631)",
    )
    git("checkout", "-q", "main")
    branches = {b: git("rev-parse", b) for b in git("for-each-ref", "--format=%(refname:short)", "refs/heads").split()}
    return commits, states, branches
