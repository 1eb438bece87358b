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
    proc = subprocess.run(["git", "-C", str(repo), "fetch", "--depth", "1", world.url("llvm-project"), fork],
                          capture_output=True, text=True)
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
        "ROCm/llvm-project")


@pytest.mark.parametrize(("label", "present", "absent"), [
    ("python-dir-3.1", ["-D{p.include_flag}", "-DPYBIND11_INCLUDE_DIR"],
     ["-D{p.syspath_var_name}", "TRITON_OFFLINE_BUILD", "-DTRITON_WHEEL_DIR", "ptxas-blackwell"]),
    ("python-dir", ["-D{p.include_flag}", "TRITON_OFFLINE_BUILD", "ptxas-blackwell", "-Dpybind11_DIR"],
     ["-D{p.syspath_var_name}", "-DTRITON_WHEEL_DIR", "-DTRITON_CACHE_PATH"]),
    ("root-setup", ["-D{p.syspath_var_name}", "-DTRITON_WHEEL_DIR", "CMakeBuild"], ["-DTRITON_CACHE_PATH"]),
    ("root-hash", ["-DTRITON_CACHE_PATH", '"LLVM_SYSPATH"'], ["-D{p.syspath_var_name}", "-DTRITON_VERSION"]),
    ("root-json", ["-DTRITON_VERSION", "-Dnanobind_ROOT", '"TRITON_AMD_CODEGEN_PATH"'], ["-D{p.syspath_var_name}"]),
])
def test_each_commit_holds_only_its_eras_build_code(world: World, label: str, present: list[str],
                                                   absent: list[str]) -> None:
    sha = world.triton_commits[label]
    text = show(world, "triton", sha, "python/setup.py" if label.startswith("python-dir") else "setup.py")
    text += show(world, "triton", sha, "python/build_helpers.py")
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
        ("python-dir", "python/setup.py", "cmake/llvm-hash.txt", "pybind11", "3.3.0"),
        ("root-setup", "setup.py", "cmake/llvm-hash.txt", "pybind11", "3.6.0"),
        ("root-hash", "setup.py", "cmake/llvm-hash.txt", "pybind11", "3.7.0"),
        ("root-json", "setup.py", "cmake/llvm-info.json", "nanobind==2.10.2", "3.8.0"),
    ],
)
def test_triton_eras(world: World, label: str, setup: str, pin: str, bindings: str, version: str) -> None:
    sha = world.triton_commits[label]
    files = set(git(world.bare["triton"], "ls-tree", "-r", "--name-only", sha).split())
    assert setup in files and pin in files
    other_pin = {"cmake/llvm-hash.txt", "cmake/llvm-info.json"} - {pin}
    assert not other_pin & files
    assert ("scripts/build-llvm-project.sh" in files) == (label != "python-dir")
    pyproject = "python/pyproject.toml" if label == "python-dir" else "pyproject.toml"
    assert bindings in show(world, "triton", sha, pyproject).split("[build-system]")[1]
    assert bindings in show(world, "triton", sha, "python/requirements.txt")
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
    for branch in ("release/3.0.x", "release/3.1.x", "release/3.3.x", "release/3.7.x", "release/3.8.x"):
        tip = world.triton_branches[branch]
        assert subprocess.run(["git", "merge-base", "--is-ancestor", tip, "main"], cwd=repo).returncode == 1
    mismatch = world.triton_commits["other-llvm"]
    assert world.triton_llvm_pins[mismatch] == world.llvm_commits["other"]


def test_pytorch_pins(world: World) -> None:
    repo = world.bare["pytorch"]
    for tag, ref in world.pytorch_tags.items():
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
    assert status == 200 and body.decode().strip() == world.pytorch_tags["v2.0.0"].triton
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
