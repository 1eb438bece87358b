"""The world's repositories and servers: shapes, pins, fetch by sha over git://, raw files over HTTP."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.world import World, build_world
from tests.world.servers import GitDaemon, GitHttpServer, RawServer
from tests.world.world import XPU_PIN


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def show(world: World, repo: str, ref: str, path: str) -> str:
    return git(world.bare[repo], "show", f"{ref}:{path}")


def git_maybe(cwd: Path, *args: str) -> str | None:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else None


def test_forks_hold_commits_upstream_lacks(world: World, tmp_path: Path) -> None:
    """triton-lang/llvm-project holds a pin llvm/llvm-project lacks (release/3.8.x's); ROCm/triton the
    ROCm Triton PyTorch 2.4 pinned. Fetching such a pin from upstream fails as GitHub does."""
    fork, rocm = world.llvm_fork_commit, world.rocm_triton_commit
    assert git_maybe(world.bare["llvm-project-fork"], "cat-file", "-e", f"{fork}^{{commit}}") is not None
    assert git_maybe(world.bare["llvm-project"], "cat-file", "-e", f"{fork}^{{commit}}") is None
    assert git_maybe(world.bare["rocm-triton"], "cat-file", "-e", f"{rocm}^{{commit}}") is not None
    assert git_maybe(world.bare["triton"], "cat-file", "-e", f"{rocm}^{{commit}}") is None
    repo = tmp_path / "l"
    git(tmp_path, "init", "-q", str(repo))
    proc = subprocess.run(
        ["git", "-C", str(repo), "fetch", "--depth", "1", world.url("llvm-project"), fork],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and "not our ref" in proc.stderr
    pinned = world.triton_commits["llvm-fork"]
    assert world.triton_llvm_pins[pinned] == fork
    build = json.loads(show(world, "triton", pinned, "cmake/llvm-build-info.json"))
    assert build == {"llvm_hash": fork, "repository": "triton-lang/llvm-project", "build_number": 1}


def test_main_builds_llvm_ahead_of_its_pin_and_has_an_amd_codegen_llvm(world: World) -> None:
    main = world.triton_commits["main"]
    assert json.loads(show(world, "triton", main, "cmake/llvm-info.json"))["llvm_hash"] == world.llvm_commit
    ahead = json.loads(show(world, "triton", main, "cmake/llvm-build-info.json"))
    assert ahead["llvm_hash"] == world.llvm_fork_commit != world.llvm_commit  # #11160: built before it is pinned
    amd = json.loads(show(world, "triton", main, "cmake/amd-llvm-info.json"))
    assert set(amd) == {"llvm_hash", "build_number", "sha256sum"} and len(amd["sha256sum"]) == 4
    assert json.loads(show(world, "triton", main, "cmake/amd-llvm-build-info.json"))["repository"] == (
        "ROCm/llvm-project"
    )


@pytest.mark.parametrize(
    ("label", "present", "absent"),
    [
        (
            "python-dir-3.0",
            [
                "-DPYBIND11_INCLUDE_DIR",
                "pybind11-version.txt",
                "-DPYTHON_INCLUDE_DIRS",
                '"-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"',
                "-DTRITON_BUILD_PROTON=OFF",
                'set(CMAKE_CXX_FLAGS "${CMAKE_C_FLAGS}',
                "-Werror",
            ],
            [
                "TRITON_OFFLINE_BUILD",
                "TRITON_APPEND_CMAKE_ARGS",
                "passthrough_args",
                "option(TRITON_BUILD_WITH_CCACHE",
                "CMAKE_C_COMPILER_LAUNCHER",
                "TRITON_PARALLEL_LINK_JOBS",
                "TRITON_BUILD_WITH_O1",
                "update_symlink",
                "LLVM_ENABLE_WERROR)",
            ],
        ),
        (
            "python-dir-3.1",
            ["-D{p.include_flag}", "-DPYBIND11_INCLUDE_DIR", '"-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"'],
            [
                "-D{p.syspath_var_name}",
                "TRITON_OFFLINE_BUILD",
                "-DTRITON_WHEEL_DIR",
                "ptxas-blackwell",
                "option(TRITON_BUILD_WITH_CCACHE",
            ],
        ),
        (
            "python-dir-3.2",
            [
                "TRITON_OFFLINE_BUILD",
                "-DPYTHON_INCLUDE_DIRS",
                "TRITON_APPEND_CMAKE_ARGS",
                '"-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"',
                "pybind11.get_include()",
            ],
            [
                "pybind11-version.txt",
                "passthrough_args",
                "option(TRITON_BUILD_WITH_CCACHE",
                "TRITON_PARALLEL_LINK_JOBS",
                "-Dpybind11_DIR",
                'set(CMAKE_CXX_FLAGS "${CMAKE_C_FLAGS}',
            ],
        ),
        (
            "python-dir",
            [
                "-D{p.include_flag}",
                "TRITON_OFFLINE_BUILD",
                "ptxas-blackwell",
                "-Dpybind11_DIR",
                "passthrough_args",
                "option(TRITON_BUILD_WITH_CCACHE",
                "TRITON_PARALLEL_LINK_JOBS",
                "-DPython3_INCLUDE_DIR",
            ],
            [
                "-D{p.syspath_var_name}",
                "-DTRITON_WHEEL_DIR",
                "-DTRITON_CACHE_PATH",
                '"-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"',
                "-DPYTHON_INCLUDE_DIRS",
            ],
        ),
        (
            "root-setup-3.4",
            ["-D{p.syspath_var_name}", "-DTRITON_WHEEL_DIR", "CMakeBuild"],
            ["TRITON_BUILD_DIR", "find_package(LLD", "update_symlink", "ptxas-blackwell"],
        ),
        ("root-setup-3.5", ["TRITON_BUILD_DIR", "find_package(LLD", "update_symlink"], ["ptxas-blackwell", "GSAN"]),
        ("root-setup", ["-D{p.syspath_var_name}", "-DTRITON_WHEEL_DIR", "CMakeBuild"], ["-DTRITON_CACHE_PATH"]),
        (
            "root-hash",
            [
                "-DTRITON_CACHE_PATH",
                '"LLVM_SYSPATH"',
                '"TRITON_CUPTI_LIB_BLACKWELL_PATH"',
                '"TRITON_CUDACRT_PATH"',
                "--cuda-path=${CMAKE_CURRENT_SOURCE_DIR}/backend",
            ],
            ["-D{p.syspath_var_name}", "-DTRITON_VERSION", "-nocudainc", "--jobserver-auth"],
        ),
        (
            "root-json",
            ["-DTRITON_VERSION", "-Dnanobind_ROOT", '"TRITON_AMD_CODEGEN_PATH"', "-nocudainc", "--jobserver-auth"],
            ["-D{p.syspath_var_name}", "--cuda-path"],
        ),
    ],
)
def test_each_commit_holds_only_its_eras_build_code(
    world: World, label: str, present: list[str], absent: list[str]
) -> None:
    """setup.py, build_helpers.py and the CMake files of each era (docs/test-world.md, conformance table):
    e.g. ccache and the link pool only from 3.3, -Werror whatever LLVM_ENABLE_WERROR says, the GSan runtime
    against the backend folder (3.7) or freestanding (3.8)."""
    sha = world.triton_commits[label]
    text = show(world, "triton", sha, "python/setup.py" if label.startswith("python-dir") else "setup.py")
    for path in (
        "python/build_helpers.py",
        "CMakeLists.txt",
        "third_party/nvidia/CMakeLists.txt",
        "third_party/amd/CMakeLists.txt",
    ):
        text += show(world, "triton", sha, path)
    assert "%%" not in text
    assert [p for p in present if p not in text] == [] and [a for a in absent if a in text] == []


def test_world_is_reproducible(world: World, tmp_path: Path) -> None:
    again = build_world(tmp_path / "again")
    assert again.triton_commits == world.triton_commits
    assert again.pytorch_tags == world.pytorch_tags
    assert again.llvm_commits == world.llvm_commits


def test_llvm_commits(world: World) -> None:
    pinned, other = world.llvm_commits["pinned"], world.llvm_commits["other"]
    assert world.llvm_commit == pinned != other
    assert git(world.bare["llvm-project"], "rev-parse", "main").strip() == other
    assert git(world.bare["llvm-project"], "rev-parse", f"{other}^").strip() == pinned
    diff = git(world.bare["llvm-project"], "diff", "--stat", pinned, other)
    assert "mlir/include/mlir/IR/Builders.h" in diff


@pytest.mark.parametrize(
    ("label", "setup", "pin", "bindings", "version"),
    [
        ("python-dir-3.0", "python/setup.py", "cmake/llvm-hash.txt", None, "3.0.0"),
        ("python-dir-3.2", "python/setup.py", "cmake/llvm-hash.txt", "pybind11", "3.2.0"),
        ("python-dir", "python/setup.py", "cmake/llvm-hash.txt", "pybind11", "3.3.0"),
        ("root-setup-3.4", "setup.py", "cmake/llvm-hash.txt", "pybind11", "3.4.0"),
        ("root-setup-3.5", "setup.py", "cmake/llvm-hash.txt", "pybind11", "3.5.0"),
        ("root-setup", "setup.py", "cmake/llvm-hash.txt", "pybind11", "3.6.0"),
        ("root-hash", "setup.py", "cmake/llvm-hash.txt", "pybind11", "3.7.0"),
        ("root-json", "setup.py", "cmake/llvm-info.json", "nanobind==2.10.2", "3.8.0"),
    ],
)
def test_triton_eras(world: World, label: str, setup: str, pin: str, bindings: str | None, version: str) -> None:
    sha = world.triton_commits[label]
    files = set(git(world.bare["triton"], "ls-tree", "-r", "--name-only", sha).split())
    assert setup in files and pin in files
    other_pin = {"cmake/llvm-hash.txt", "cmake/llvm-info.json"} - {pin}
    assert not other_pin & files
    in_python = label.startswith("python-dir")
    assert ("scripts/build-llvm-project.sh" in files) == (not in_python)
    pyproject = "python/pyproject.toml" if in_python else "pyproject.toml"
    requires = show(world, "triton", sha, pyproject).split("[build-system]")[1]
    if bindings is None:  # 3.0/3.1 download pybind11 at build time: no build requirement
        assert "pybind11" not in requires and "cmake/pybind11-version.txt" in files
    else:
        assert bindings in requires and bindings in show(world, "triton", sha, "python/requirements.txt")
    # The GSan runtime's sources came with 3.7.
    assert ("python/triton/experimental/gsan/src/GSanLibrary.cu" in files) == (version >= "3.7")
    setup_text = show(world, "triton", sha, setup)
    assert re.search(rf'^TRITON_VERSION = "{re.escape(version)}"', setup_text, re.M)
    assert world.triton_versions[sha] == version
    if pin.endswith(".json"):
        info = json.loads(show(world, "triton", sha, pin))
        assert info["llvm_hash"] == world.llvm_commit
        assert isinstance(info["build_number"], int) and "ubuntu-x64" in info["sha256sum"]
    else:
        assert show(world, "triton", sha, pin) == world.llvm_commit + "\n"


def test_triton_release_tips_are_not_on_main(world: World) -> None:
    repo = world.bare["triton"]
    for branch in (
        "release/3.0.x",
        "release/3.1.x",
        "release/3.2.x",
        "release/3.3.x",
        "release/3.4.x",
        "release/3.5.x",
        "release/3.7.x",
        "release/3.8.x",
    ):
        tip = world.triton_branches[branch]
        assert subprocess.run(["git", "merge-base", "--is-ancestor", tip, "main"], cwd=repo).returncode == 1
    mismatch = world.triton_commits["other-llvm"]
    assert world.triton_llvm_pins[mismatch] == world.llvm_commits["other"]


def test_pytorch_pins(world: World) -> None:
    repo = world.bare["pytorch"]
    for tag, ref in {**world.pytorch_tags, **world.pytorch_triton2_tags}.items():
        assert git(repo, "rev-parse", f"{tag}^{{commit}}").strip() == ref.commit
        path = ".github/ci_commit_pins/triton.txt" if tag == "v2.0.0" else ".ci/docker/ci_commit_pins/triton.txt"
        assert show(world, "pytorch", tag, path) == ref.triton + "\n"
        assert ref.triton in world.triton_versions
        version = world.pytorch_triton_versions[tag]
        if version is not None:
            assert show(world, "pytorch", tag, ".ci/docker/triton_version.txt").strip() == version
            assert world.triton_versions[ref.triton] == version
            assert show(world, "pytorch", tag, ".ci/docker/ci_commit_pins/triton-xpu.txt").strip() == XPU_PIN
            rocm = git_maybe(repo, "show", f"{tag}:.ci/docker/ci_commit_pins/triton-rocm.txt")
            # Before 2.5 ROCm wheels pin the ROCm fork; v2.5.0 keeps a stale copy; later tags have none.
            assert rocm == (world.rocm_triton_commit + "\n" if tag in ("v2.4.1", "v2.5.0") else None), tag
    old = subprocess.run(
        ["git", "cat-file", "-e", "v2.0.0:.ci/docker/ci_commit_pins/triton.txt"], cwd=repo, capture_output=True
    )
    assert old.returncode != 0
    # Since 2023 the .github path is a symlink (mode 120000) into .ci/docker.
    assert git(repo, "ls-tree", "v2.5.0", ".github/ci_commit_pins/triton.txt").startswith("120000")
    assert show(world, "pytorch", "main", ".ci/docker/ci_commit_pins/triton.txt").strip() == world.pytorch_main.triton
    for tag, text in world.pytorch_bad_tags.items():
        assert show(world, "pytorch", tag, ".ci/docker/ci_commit_pins/triton.txt") == text
    # PyTorch 2.0-2.3 pin Triton 2.x: python/setup.py with its version; 2.0 without cmake/llvm-hash.txt.
    for tag, version, hash_file in (("v2.0.0", "2.0.0", False), ("v2.3.1", "2.3.1", True)):
        triton = world.pytorch_triton2_tags[tag].triton
        assert f'version="{version}"' in show(world, "triton", triton, "python/setup.py")
        assert (git_maybe(world.bare["triton"], "show", f"{triton}:cmake/llvm-hash.txt") is not None) == hash_file


def test_torch_version_py(world: World) -> None:
    namespace: dict[str, object] = {}
    exec(world.torch_version_py("v2.5.0"), namespace)
    assert namespace["git_version"] == world.pytorch_tags["v2.5.0"].commit
    assert namespace["__version__"] == "2.5.0"


def test_git_daemon_fetches_one_commit_by_sha(world: World, git_daemon: GitDaemon, tmp_path: Path) -> None:
    # The release tip is on no branch of main: a fetch by sha must still work.
    sha = world.triton_commits["release-3.3"]
    repo = tmp_path / "t"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", git_daemon.url("triton"))
    git(repo, "fetch", "-q", "--depth", "1", "origin", sha)
    git(repo, "checkout", "-q", "FETCH_HEAD")
    assert git(repo, "rev-parse", "HEAD").strip() == sha
    assert (repo / "python" / "setup.py").is_file()
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"  # shallow: nothing else came
    tags = git(repo, "ls-remote", "--tags", git_daemon.url("pytorch"), "refs/tags/v2.*")
    assert f"{world.pytorch_tags['v2.5.0'].commit}\trefs/tags/v2.5.0^{{}}" in tags


def test_git_daemon_unknown_repo(git_daemon: GitDaemon, tmp_path: Path) -> None:
    proc = subprocess.run(
        ["git", "ls-remote", git_daemon.url("nonexistent")], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode != 0


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=120) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_raw_server(world: World, raw_http_server: RawServer) -> None:
    pin = ".ci/docker/ci_commit_pins/triton.txt"
    status, body = fetch(raw_http_server.url("v2.5.0", pin))
    assert (status, body.decode()) == (200, world.pytorch_tags["v2.5.0"].triton + "\n")
    # Branch names with slashes, and full shas, work as refs.
    assert fetch(raw_http_server.url("release/2.7", pin))[1].decode().strip() == world.pytorch_tags["v2.7.1"].triton
    commit = world.pytorch_tags["v2.12.1"].commit
    assert fetch(raw_http_server.url(commit, pin))[1].decode().strip() == world.pytorch_tags["v2.12.1"].triton
    # v2.0.0 has no .ci pin: 404 like GitHub, and the old path answers.
    assert fetch(raw_http_server.url("v2.0.0", pin)) == (404, b"404: Not Found")
    status, body = fetch(raw_http_server.url("v2.0.0", ".github/ci_commit_pins/triton.txt"))
    assert status == 200 and body.decode().strip() == world.pytorch_triton2_tags["v2.0.0"].triton
    assert fetch(raw_http_server.url("no-such-tag", pin))[0] == 404
    assert fetch(raw_http_server.url("main", pin, repo="someone/else"))[0] == 404
    assert fetch(raw_http_server.url("v9.9.8-emptypin", pin)) == (200, b"")
    llvm_pin = fetch(
        raw_http_server.url(world.triton_commits["root-hash"], "cmake/llvm-hash.txt", "triton-lang/triton")
    )
    assert llvm_pin == (200, (world.llvm_commit + "\n").encode())
    assert "/pytorch/pytorch/v2.5.0/" + pin in raw_http_server.requests


def test_git_http_server_clone_and_fetch_by_sha(world: World, git_http_server: GitHttpServer, tmp_path: Path) -> None:
    sha = world.triton_commits["release-3.1"]  # on no branch of main
    repo = tmp_path / "t"
    git(tmp_path, "clone", "-q", "--no-checkout", git_http_server.url("triton"), str(repo))
    git(repo, "fetch", "-q", "--depth", "1", "origin", sha)
    assert git(repo, "rev-parse", "FETCH_HEAD").strip() == sha
    assert any("git-upload-pack" in r for r in git_http_server.requests)
    missing = subprocess.run(["git", "ls-remote", git_http_server.url("nope")], capture_output=True, cwd=tmp_path)
    assert missing.returncode != 0


@pytest.mark.parametrize(
    ("label", "present", "absent"),
    [
        (
            "python-dir",
            [
                "PYTHON ?= python\n",
                "\t$(PYTEST) -s -n 8 python/test/unit/test_debug.py --forked\n",
                "\t# Run cuda/test_flashattention.py separately",
                "test_kwargs[False]",
            ],
            ["NUM_PROCS", "test-gluon", "ROOT_DIR", "--tb=short", "test-gsan", "_test_runner"],
        ),
        (
            "root-setup",
            [
                "NUM_PROCS ?= 8\n",
                "--tb=short -s -n $(NUM_PROCS)",
                "test-distributed:",
                "test-microbenchmark:",
                "\t$(PYTEST) python/test/gluon/test_frontend.py\n",
            ],
            ["ROOT_DIR", "test-gsan", "test-plugins", "NUM_GPUS"],
        ),
        (
            "root-hash",
            [
                "ROOT_DIR := $(realpath",
                'BUILD_DIR := $(shell PYTHONPATH="$(ROOT_DIR)/python"',
                "test-gsan:",
                "INSTALL_DIR ?=",
            ],
            [" -s ", "--tb=short", "test-plugins:", "NUM_GPUS"],
        ),
        (
            "root-json-3.8",
            [
                "TRITON_KERNELS_PATH := $(ROOT_DIR)/python/triton_kernels$(if $(PYTHONPATH),",
                "test-plugins:",
                'PYTHONPATH="$(TRITON_KERNELS_PATH)"',
            ],
            ["NUM_GPUS", "_test_runner"],
        ),
        (
            "root-json",
            [
                "NUM_GPUS ?= 1\n",
                "WARMUP_PROCS ?= $(NUM_PROCS)\n",
                "\t$(PYTHON) -m triton._test_runner suite unit --num-gpus $(NUM_GPUS) --num-procs $(NUM_PROCS)\n",
                "TRITON_CI_CACHE_PHASE=gluon-frontend",
                "-p triton._compile_warmup",
            ],
            ["TRITON_KERNELS_PATH", "INSTALL_DIR"],
        ),
    ],
)
def test_each_eras_makefile_is_upstreams(world: World, label: str, present: list[str], absent: list[str]) -> None:
    """docs/test-world.md (conformance table): the Makefile @ 96316ce5 (3.3), 004d7f5f (3.6), 6d2e38bf (3.7),
    5838701f (3.8), 1d2da15d (main), in miniature; real make reads each (`make -n`)."""
    text = show(world, "triton", world.triton_commits[label], "Makefile")
    assert "%%" not in text
    assert [p for p in present if p not in text] == [] and [a for a in absent if a in text] == []
    proc = subprocess.run(
        ["make", "-n", "-f", "-", "test-nogpu", "test-interpret", "BUILD_DIR=/b", "PYTHON=py"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and "ninja -C /b check-triton-unit-tests" in proc.stdout, proc.stderr


@pytest.mark.parametrize(
    ("label", "target"),
    [("python-dir-3.0", False), ("python-dir-3.1", False), ("python-dir", True), ("root-json", True)],
)
def test_check_triton_unit_tests_only_from_3_3(world: World, label: str, target: bool) -> None:
    """#5150 (8b29bb75) added the target in 3.3; before it the unit tests were plain add_test (ctest)."""
    text = show(world, "triton", world.triton_commits[label], "unittest/CMakeLists.txt")
    assert ("\nadd_custom_target(check-triton-unit-tests\n" in text) == target and "\nadd_test(" in text
