"""Build the test world: real miniature llvm-project, Triton and PyTorch git repositories.

The shapes (file paths, pin formats, layout eras, branch and tag names) are copied from the real
repositories; see tests/world/README.md. Everything is created with the real `git` binary, with fixed
author/committer dates so that commit ids are the same on every run and machine with this git.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tests.world import downloads

TEMPLATES = Path(__file__).resolve().parent / "templates"

# The three repositories, by the name their bare copy has under <root>/git (and in a --mirror dir).
REPO_NAMES = ("pytorch", "triton", "llvm-project")
# Forks, beside them under <root>/git: triton-lang/llvm-project (LLVM backports Triton pins) and
# ROCm/triton (the ROCm Triton PyTorch < 2.5 pinned in triton-rocm.txt).
FORK_NAMES = ("llvm-project-fork", "rocm-triton")

# owner/repo as GitHub spells them -> repository name in the world (for the raw file server).
GITHUB_NAMES: dict[str, str] = {
    "pytorch/pytorch": "pytorch",
    "triton-lang/triton": "triton",
    "openai/triton": "triton",  # PyTorch's scripts still use the old URL; GitHub redirects it
    "llvm/llvm-project": "llvm-project",
    "triton-lang/llvm-project": "llvm-project-fork",
    "ROCm/triton": "rocm-triton",
    "ROCmSoftwarePlatform/triton": "rocm-triton",  # its earlier name
}

PIN_FILE = ".ci/docker/ci_commit_pins/triton.txt"
ROCM_PIN_FILE = ".ci/docker/ci_commit_pins/triton-rocm.txt"
XPU_PIN_FILE = ".ci/docker/ci_commit_pins/triton-xpu.txt"
VERSION_FILE = ".ci/docker/triton_version.txt"
OLD_PIN_FILE = ".github/ci_commit_pins/triton.txt"

_BASE_EPOCH = 1767225600  # 2026-01-01T00:00:00Z: fixed dates make commit ids reproducible


class PinnedRef(NamedTuple):
    """A PyTorch ref: its commit, and the Triton commit its pin file names."""

    commit: str
    triton: str


@dataclass(frozen=True)
class World:
    root: Path
    git_root: Path  # <root>/git: bare repositories, the base path of the git daemon and a --mirror dir
    work: dict[str, Path]  # name -> non-bare work repository (<root>/work/<name>)
    bare: dict[str, Path]  # name -> bare repository (<root>/git/<name>.git)
    llvm_commits: dict[str, str]  # "pinned", "other" -> sha
    llvm_commit: str  # the commit every Triton era pins (llvm_commits["pinned"])
    triton_commits: dict[str, str]  # label -> sha (see README for the labels)
    triton_versions: dict[str, str]  # sha -> TRITON_VERSION base string in that commit's setup.py
    triton_eras: dict[str, str]  # sha -> "python-dir" | "root-hash" | "root-json"
    triton_llvm_pins: dict[str, str]  # sha -> LLVM sha that commit pins
    triton_branches: dict[str, str]  # branch name -> tip sha
    pytorch_tags: dict[str, PinnedRef]  # good tags: tag -> (pytorch commit, pinned triton sha)
    pytorch_triton_versions: dict[str, str | None]  # tag -> .ci/docker/triton_version.txt (None: absent)
    pytorch_bad_tags: dict[str, str]  # tag -> the raw (bad) content of its triton.txt
    pytorch_main: PinnedRef
    pytorch_versions: dict[str, str] = field(default_factory=dict)  # tag -> torch version ("2.5.0")
    llvm_fork_commit: str = ""  # only in llvm-project-fork.git (triton-lang/llvm-project)
    rocm_triton_commit: str = ""  # only in rocm-triton.git (ROCm/triton): PyTorch 2.4's triton-rocm.txt
    downloads_url: str = ""  # base URL of the world's downloads (MINI_WORLD_DOWNLOADS)

    def url(self, name: str) -> str:
        """file:// URL of a bare repository (works with git clone/fetch, also by sha)."""
        return self.bare[name].as_uri()

    def torch_version_py(self, tag: str) -> str:
        """Text of the torch/version.py a torch built from `tag` would have (torch.version.git_version)."""
        if tag == "main":
            commit, version = self.pytorch_main.commit, "2.15.0a0+git" + self.pytorch_main.commit[:7]
        else:
            commit, version = self.pytorch_tags[tag].commit, self.pytorch_versions[tag]
        return (
            "from typing import Optional\n\n"
            "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
            f"__version__ = '{version}'\n"
            "debug = False\n"
            "cuda: Optional[str] = None\n"
            f"git_version = '{commit}'\n"
            "hip: Optional[str] = None\n"
            "xpu: Optional[str] = None\n"
        )


# --------------------------------------------------------------------------------------------
# git plumbing


class _Git:
    """Runs git in one repository with an isolated configuration and a deterministic clock."""

    def __init__(self, repo: Path, clock: list[int]) -> None:
        self.repo = repo
        self.clock = clock

    def env(self) -> dict[str, str]:
        stamp = f"@{_BASE_EPOCH + self.clock[0] * 3600} +0000"
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_AUTHOR_NAME="World Builder",
            GIT_AUTHOR_EMAIL="world@example.invalid",
            GIT_COMMITTER_NAME="World Builder",
            GIT_COMMITTER_EMAIL="world@example.invalid",
            GIT_AUTHOR_DATE=stamp,
            GIT_COMMITTER_DATE=stamp,
        )
        return env

    def __call__(self, *args: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.repo, env=self.env(), capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed in {self.repo}:\n{proc.stderr}")
        return proc.stdout.strip()

    def commit(self, message: str) -> str:
        self.clock[0] += 1
        self("add", "-A")
        self("commit", "-q", "--allow-empty", "-m", message)
        return self("rev-parse", "HEAD")

    def tag(self, name: str, message: str | None = None) -> None:
        self.clock[0] += 1
        self("tag", "-a", name, "-m", message or name)


def _init(path: Path, clock: list[int], branch: str = "main") -> _Git:
    path.mkdir(parents=True)
    git = _Git(path, clock)
    git("init", "-q", "-b", branch)
    git("config", "core.symlinks", "true")
    return git


def _clear_tree(repo: Path) -> None:
    for child in repo.iterdir():
        if child.name == ".git":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


_CONDITION = re.compile(r"^\s*(?:#|//)?\s*%%(IF|ELSE|ENDIF)(?: (!?)([A-Z0-9_]+))?%%\s*$")


def _select_lines(text: str, flags: Mapping[str, bool]) -> str:
    """Keep the lines of `%%IF NAME%%` / `%%IF !NAME%%` ... [`%%ELSE%%` ...] `%%ENDIF%%` blocks whose
    condition holds (blocks nest); the marker lines themselves go. A commit then holds only its era's
    code, as the real one does, so tools that read the files see what upstream's files say."""
    out: list[str] = []
    stack: list[bool] = []  # whether each open block's current branch is kept
    for line in text.splitlines(keepends=True):
        match = _CONDITION.match(line)
        if match is None:
            if all(stack):
                out.append(line)
            continue
        kind, negate, name = match.groups()
        if kind == "IF":
            stack.append(flags[name] != bool(negate))
        elif kind == "ELSE":
            stack[-1] = not stack[-1]
        else:
            stack.pop()
    if stack:
        raise ValueError("unclosed %%IF%% block")
    return "".join(out)


def _copy_template(src: Path, dest: Path, subst: Mapping[str, str], flags: Mapping[str, bool] | None = None) -> None:
    """Copy a template tree, keeping the `%%IF FLAG%%` blocks whose flag holds and replacing %%NAME%%
    markers in text files; `.tmpl` suffixes are dropped."""
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if "__pycache__" in rel.parts or path.is_dir():
            continue
        target = dest / (str(rel)[: -len(".tmpl")] if rel.name.endswith(".tmpl") else rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        try:
            text = data.decode()
        except UnicodeDecodeError:
            target.write_bytes(data)
        else:
            text = _select_lines(text, flags or {})
            for key, value in subst.items():
                text = text.replace(f"%%{key}%%", value)
            target.write_text(text)
        target.chmod(path.stat().st_mode & 0o777)


def _write(repo: Path, rel: str, text: str) -> None:
    target = repo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def _make_bare(work: Path, bare: Path) -> None:
    """A bare copy with every branch and tag, configured so that a fetch by sha works (git daemon too)."""
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True, capture_output=True)
    g = _Git(bare, [0])
    g("remote", "remove", "origin")
    g("config", "uploadpack.allowAnySHA1InWant", "true")
    g("config", "uploadpack.allowReachableSHA1InWant", "true")
    g("config", "uploadpack.allowTipSHA1InWant", "true")
    g("config", "uploadpack.allowFilter", "true")
    (bare / "git-daemon-export-ok").touch()
    g("update-server-info")  # also usable by a dumb HTTP server


# --------------------------------------------------------------------------------------------
# llvm-project


def _build_llvm(repo: Path, clock: list[int]) -> dict[str, str]:
    git = _init(repo, clock)
    _copy_template(TEMPLATES / "llvm-project", repo, {})
    pinned = git.commit("[MLIR] Mini llvm-project: LLVM, MLIR, LLD and Clang libraries")
    # The next commit changes a public MLIR API, as upstream LLVM does all the time (it has no
    # stable C++ API): a Triton written against the pinned commit no longer compiles against this one.
    _copy_template(TEMPLATES / "llvm-project-other", repo, {})
    other = git.commit("[MLIR][NFC] OpBuilder::create takes a Location first")
    return {"pinned": pinned, "other": other}


def _fork(source: Path, dest: Path, clock: list[int], base: str, branch: str, files: Mapping[str, str],
          message: str) -> str:
    """A fork of `source`: its history, plus one commit on `branch` (from `base`) that only the fork has."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(source), str(dest)], check=True, capture_output=True)
    git = _Git(dest, clock)
    git("remote", "remove", "origin")
    git("checkout", "-q", "-b", branch, base)
    for rel, text in files.items():
        _write(dest, rel, text)
    return git.commit(message)


# --------------------------------------------------------------------------------------------
# Triton


@dataclass(frozen=True)
class _TritonState:
    era: str  # python-dir | root-setup | root-hash | root-json
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


def era_flags(state: _TritonState) -> dict[str, bool]:
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
    }


def _era_substitutions(state: _TritonState) -> dict[str, str]:
    in_python = state.era == "python-dir"
    version = state.version_key
    passthrough = ["TRITON_BUILD_PROTON", "TRITON_BUILD_WITH_CCACHE", "TRITON_PARALLEL_LINK_JOBS"]
    if state.era in ("root-hash", "root-json"):  # since the downloads moved into CMake (3.7)
        passthrough += ["TRITON_OFFLINE_BUILD", "TRITON_LLVM_SYSTEM_SUFFIX", "LLVM_SYSPATH", "JSON_SYSPATH",
                        "TRITON_CUDART_PATH", "TRITON_CUOBJDUMP_PATH", "TRITON_NVDISASM_PATH", "TRITON_PTXAS_PATH",
                        "TRITON_PTXAS_BLACKWELL_PATH"]
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


def _triton_tree(repo: Path, state: _TritonState) -> None:
    """Write the whole tree of one Triton commit for its layout era."""
    _clear_tree(repo)
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
        **_era_substitutions(state),
    }
    flags = era_flags(state)
    _copy_template(TEMPLATES / "triton" / "common", repo, subst, flags)
    if state.llvm_bumped:
        # The LLVM bump commit adapts Triton's C++ to the other LLVM's API, as real bumps do.
        _copy_template(TEMPLATES / "triton-llvm-bump", repo, subst, flags)
    _write(repo, "cmake/nvidia-toolchain-version.json", json.dumps(downloads.NVIDIA_VERSIONS, indent=2) + "\n")
    if in_python:
        # <= 3.3: setup.py lives in python/, and scripts/build-llvm-project.sh does not exist yet;
        # the NVIDIA tools are found by _path_to_binary in the backend's compiler.py (no knobs.py).
        # pip reads the pyproject.toml next to setup.py; the root one only configures tools.
        (repo / "setup.py").rename(repo / "python" / "setup.py")
        (repo / "pyproject.toml").rename(repo / "python" / "pyproject.toml")
        _write(repo, "pyproject.toml", '[tool.yapf]\nbased_on_style = "pep8"\ncolumn_limit = 120\n')
        (repo / "scripts" / "build-llvm-project.sh").unlink()
        (repo / "python" / "triton" / "knobs.py").unlink()
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
        _write(repo, "cmake/llvm-info.json", json.dumps(info, indent=2) + "\n")
    else:
        _write(repo, "cmake/llvm-hash.txt", state.llvm + "\n")
    if state.build_info is not None:
        build_hash, repository = state.build_info
        build: dict[str, object] = {"llvm_hash": build_hash}
        if repository is not None:
            build["repository"] = repository
        build["build_number"] = 1
        _write(repo, "cmake/llvm-build-info.json", json.dumps(build, indent=2) + "\n")
    if state.amd_llvm:
        amd = {"llvm_hash": downloads.AMD_LLVM_HASH, "build_number": downloads.AMD_LLVM_BUILD_NUMBER,
               "sha256sum": downloads.amd_codegen_sha256()}
        _write(repo, "cmake/amd-llvm-info.json", json.dumps(amd, indent=2) + "\n")
        amd_build = {"llvm_hash": downloads.AMD_LLVM_HASH, "repository": "ROCm/llvm-project", "build_number": 1}
        _write(repo, "cmake/amd-llvm-build-info.json", json.dumps(amd_build, indent=2) + "\n")


def _build_triton(
    repo: Path, clock: list[int], llvm: dict[str, str]
) -> tuple[dict[str, str], dict[str, _TritonState], dict[str, str]]:
    git = _init(repo, clock)
    commits: dict[str, str] = {}
    states: dict[str, _TritonState] = {}

    def commit(label: str, state: _TritonState, message: str, extra: Mapping[str, str] | None = None) -> str:
        _triton_tree(repo, state)
        for rel, text in (extra or {}).items():
            _write(repo, rel, text)
        sha = git.commit(message)
        commits[label] = sha
        states[sha] = state
        return sha

    def release(branch: str, label: str, state: _TritonState, note: str) -> None:
        git("checkout", "-q", "-b", branch)
        commit(label, state, f"[BACKPORT] {note}", {"RELEASE_NOTES.md": f"# Triton {state.version}\n\n- {note}\n"})
        git("checkout", "-q", "main")

    pinned = llvm["pinned"]
    commit("python-dir-3.0", _TritonState("python-dir", "3.0.0", pinned), "Triton 3.0: setup.py in python/")
    release("release/3.0.x", "release-3.0", _TritonState("python-dir", "3.0.0", pinned), "Fix a 3.0 crash")
    commit("python-dir-3.1", _TritonState("python-dir", "3.1.0", pinned), "Bump version to 3.1.0")
    release("release/3.1.x", "release-3.1", _TritonState("python-dir", "3.1.0", pinned), "Fix a 3.1 crash")
    commit("python-dir", _TritonState("python-dir", "3.3.0", pinned), "Bump version to 3.3.0")
    release("release/3.3.x", "release-3.3", _TritonState("python-dir", "3.3.1", pinned), "Release 3.3.1")
    commit(
        "root-setup",
        _TritonState("root-setup", "3.6.0", pinned),
        "Fix building source distributions (#6381): setup.py moves to the repository root",
    )
    commit(
        "root-hash",
        _TritonState("root-hash", "3.7.0", pinned),
        "[BUILD] Move third party package downloads from setup.py to CMake (#9458)",
    )
    release("release/3.7.x", "release-3.7", _TritonState("root-hash", "3.7.1", pinned), "Release 3.7.1")
    # The 3.8 cut: llvm-build-info.json names the same commit, no repository yet.
    release_38 = _TritonState("root-json", "3.8.0", pinned, build_info=(pinned, None))
    commit("root-json-3.8", release_38, "Track each LLVM build separately (#10358)")
    release("release/3.8.x", "release-3.8", release_38, "Cherry-pick a 3.8 fix")
    # main: nanobind, the AMD codegen's own LLVM, and an LLVM build workflow that runs ahead of the
    # pin (llvm-build-info.json names a commit of the triton-lang fork that Triton does not use yet).
    commit(
        "root-json",
        _TritonState("root-json", "3.8.0", pinned, build_info=(llvm["fork"], "triton-lang/llvm-project"),
                     amd_llvm=True),
        "Switch Python bindings to nanobind (#10283); [BUILD] Build LLVM at the fork's commit first",
    )
    commits["main"] = commits["root-json"]
    # A commit (on its own branch) whose pin names the other LLVM commit: for mismatch tests.
    git("checkout", "-q", "-b", "llvm-bump")
    commit("other-llvm", _TritonState("root-json", "3.8.0", llvm["other"], True), "[BUILD] Bump LLVM")
    git("checkout", "-q", "main")
    # A pin that only the triton-lang/llvm-project fork has, as release/3.8.x pinned one (#10719).
    git("checkout", "-q", "-b", "llvm-fork")
    fork_state = _TritonState("root-json", "3.8.0", llvm["fork"], build_info=(llvm["fork"], "triton-lang/llvm-project"),
                              llvm_project_url="https://github.com/triton-lang/llvm-project")
    commit("llvm-fork", fork_state, "[release/3.8.x] Pin LLVM to the triton-lang/llvm-project backport")
    # release/3.7.x after #10631: cmake/llvm-hash.txt names a commit only the fork has, with no build-info
    # file, and its build script still clones llvm/llvm-project: nothing in the commit names the fork.
    git("checkout", "-q", "-b", "llvm-fork-3.7", commits["release-3.7"])
    commit("llvm-fork-3.7", _TritonState("root-hash", "3.7.1", llvm["fork"]),
           "[Release/3.7] Pin LLVM to triton-lang/llvm-project's backport (#10631)")
    git("checkout", "-q", "main")
    branches = {b: git("rev-parse", b) for b in git("for-each-ref", "--format=%(refname:short)", "refs/heads").split()}
    return commits, states, branches


# --------------------------------------------------------------------------------------------
# PyTorch

# (tag, torch version, triton label, triton_version.txt); v2.0.0 predates .ci/docker pins.
_PYTORCH_RELEASES = [
    ("v2.4.1", "2.4.1", "release-3.0", "3.0.0"),
    ("v2.5.0", "2.5.0", "release-3.1", "3.1.0"),
    ("v2.7.1", "2.7.1", "release-3.3", "3.3.1"),
    ("v2.12.1", "2.12.1", "release-3.7", "3.7.1"),
    ("v2.14.0", "2.14.0", "release-3.8", "3.8.0"),
    ("v9.9.6-llvm-mismatch", "9.9.6", "other-llvm", "3.8.0"),
]


def _pytorch_common(repo: Path, version: str) -> None:
    _write(repo, "README.md", "# PyTorch (miniature)\n\nOnly the files that name the Triton pin.\n")
    _write(repo, "version.txt", version + "\n")
    _write(repo, "torch/__init__.py", '"""torch (miniature source tree)."""\n')


# intel/intel-xpu-backend-for-triton commit in PyTorch's triton-xpu.txt (the world has no such repository).
XPU_PIN = "fd464927dfaafb392dedfcbf3c1f288196f502ed"


def _pytorch_pins(repo: Path, triton_sha: str, triton_version: str | None, pin_text: str | None = None,
                  rocm: str | None = None) -> None:
    """Pin files of one PyTorch commit; triton-rocm.txt only where `rocm` is given (before the pins
    were unified in 2.5, and one stale copy after), triton-xpu.txt always."""
    text = pin_text if pin_text is not None else triton_sha + "\n"
    _write(repo, PIN_FILE, text)
    if rocm is not None:
        _write(repo, ROCM_PIN_FILE, rocm + "\n")
    elif (repo / ROCM_PIN_FILE).exists():
        (repo / ROCM_PIN_FILE).unlink()
    _write(repo, XPU_PIN_FILE, XPU_PIN + "\n")
    if triton_version is not None:
        _write(repo, VERSION_FILE, triton_version + "\n")
    old = repo / OLD_PIN_FILE
    old.parent.mkdir(parents=True, exist_ok=True)
    if old.exists() or old.is_symlink():
        old.unlink()
    # Since PR #95233 (Feb 2023) the old path is a symlink into the Docker context.
    old.symlink_to("../../.ci/docker/ci_commit_pins/triton.txt")


def _build_pytorch(
    repo: Path, clock: list[int], triton: dict[str, str], triton_versions: dict[str, str], rocm_triton: str
) -> tuple[dict[str, PinnedRef], dict[str, str | None], dict[str, str], PinnedRef, dict[str, str]]:
    git = _init(repo, clock)
    tags: dict[str, PinnedRef] = {}
    versions: dict[str, str | None] = {}
    torch_versions: dict[str, str] = {}

    # v2.0.0: only .github/ci_commit_pins/triton.txt, a regular file, no triton_version.txt.
    _pytorch_common(repo, "2.0.0")
    _write(repo, OLD_PIN_FILE, triton["python-dir-3.1"] + "\n")
    sha = git.commit("Release 2.0.0")
    git.tag("v2.0.0")
    tags["v2.0.0"], versions["v2.0.0"], torch_versions["v2.0.0"] = (
        PinnedRef(sha, triton["python-dir-3.1"]),
        None,
        "2.0.0",
    )
    git("branch", "release/2.0")

    for tag, version, label, triton_version in _PYTORCH_RELEASES:
        minor = ".".join(version.split(".")[:2])
        # main moves on (with the main-branch pin), then the release branch is cut and its pin updated.
        _pytorch_common(repo, f"{minor}.0a0")
        _pytorch_pins(repo, triton["root-hash"], triton_versions[triton["root-hash"]])
        git.commit(f"Update to {minor} development")
        git("checkout", "-q", "-B", f"release/{minor}")
        _pytorch_common(repo, version)
        # ROCm wheels read triton-rocm.txt (a ROCm/triton commit) before 2.5; v2.5.0 keeps a stale copy.
        rocm = rocm_triton if tag in ("v2.4.1", "v2.5.0") else None
        _pytorch_pins(repo, triton[label], triton_version, rocm=rocm)
        sha = git.commit(f"[release/{minor}] Update triton pin to the release/{triton_version[:3]}.x head")
        git.tag(tag, f"PyTorch {version}")
        tags[tag], versions[tag], torch_versions[tag] = PinnedRef(sha, triton[label]), triton_version, version
        git("checkout", "-q", "main")

    _pytorch_common(repo, "2.15.0a0")
    _pytorch_pins(repo, triton["main"], triton_versions[triton["main"]])
    main_sha = git.commit("Update triton pin (#180000)")

    # Refs with unusable pins, for negative tests. Each lives only under its tag.
    ok = triton["main"]
    bad = {
        "v9.9.9-badpin": ok[:39] + "\n",  # 39 hex digits
        "v9.9.8-emptypin": "",
        "v9.9.7-garbage": ok + " # bumped by hand\nmore garbage\n",
        "v9.9.4-unknownpin": "0123456789abcdef0123456789abcdef01234567\n",  # well-formed, not in triton
    }
    for tag, text in bad.items():
        git("checkout", "-q", "--detach", main_sha)
        _pytorch_pins(repo, ok, "3.8.0", pin_text=text)
        git.commit(f"Broken pin for {tag}")
        git.tag(tag)
    git("checkout", "-q", "main")
    return tags, versions, bad, PinnedRef(main_sha, triton["main"]), torch_versions


# --------------------------------------------------------------------------------------------


def build_world(root: Path) -> World:
    """Create the three repositories (work + bare) under `root` (which must not exist or be empty)."""
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    clock = [0]
    work = {name: root / "work" / name for name in REPO_NAMES}
    git_root = root / "git"
    bare = {name: git_root / f"{name}.git" for name in REPO_NAMES}

    for name in FORK_NAMES:
        work[name], bare[name] = root / "work" / name, git_root / f"{name}.git"

    llvm = _build_llvm(work["llvm-project"], clock)
    llvm_fork = _fork(
        work["llvm-project"], work["llvm-project-fork"], clock, llvm["pinned"], "release/triton-3.8",
        {"llvm/lib/Transforms/Vectorize/SLPBackport.txt": "Backport of an SLP vectorizer fix.\n"},
        "[SLP] Backport a vectorizer fix for the Triton 3.8 release",
    )
    triton, states, branches = _build_triton(work["triton"], clock, {**llvm, "fork": llvm_fork})
    rocm_triton = _fork(
        work["triton"], work["rocm-triton"], clock, triton["release-3.0"], "release/pytorch_2.4",
        {"RELEASE_NOTES.md": "# ROCm Triton for PyTorch 2.4\n"}, "[ROCm] Triton for PyTorch 2.4",
    )
    triton_versions = {sha: s.version for sha, s in states.items()}
    tags, tag_versions, bad, main, torch_versions = _build_pytorch(
        work["pytorch"], clock, triton, triton_versions, rocm_triton
    )

    git_root.mkdir()
    for name in (*REPO_NAMES, *FORK_NAMES):
        _make_bare(work[name], bare[name])
    # Builds of the mini Triton in this process and its children read this world's downloads.
    downloads_url = downloads.provide_downloads(root / "downloads")

    return World(
        root=root,
        git_root=git_root,
        work=work,
        bare=bare,
        llvm_commits=llvm,
        llvm_commit=llvm["pinned"],
        triton_commits=triton,
        triton_versions=triton_versions,
        triton_eras={sha: s.era for sha, s in states.items()},
        triton_llvm_pins={sha: s.llvm for sha, s in states.items()},
        triton_branches=branches,
        pytorch_tags=tags,
        pytorch_triton_versions=tag_versions,
        pytorch_bad_tags=bad,
        pytorch_main=main,
        pytorch_versions=torch_versions,
        llvm_fork_commit=llvm_fork,
        rocm_triton_commit=rocm_triton,
        downloads_url=downloads_url,
    )
