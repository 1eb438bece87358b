"""Build the test world: real miniature llvm-project, Triton and PyTorch git repositories.

The shapes (file paths, pin formats, layout eras, branch and tag names) are copied from the real
repositories; see tests/world/README.md. Everything is created with the real `git` binary, with fixed
author/committer dates so that commit ids are the same on every run and machine with this git.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.world import downloads
from tests.world.gitrepo import TEMPLATES, Git, copy_template, init_repo, make_bare, write_file
from tests.world.pytorch_repo import TRITON_2_TAGS, XPU_PIN, PinnedRef, build_pytorch
from tests.world.triton_repo import build_triton

# Re-exported: the world's tests and fixtures import these names from here.
__all__ = ["GITHUB_NAMES", "TEMPLATES", "XPU_PIN", "PinnedRef", "World", "build_world"]

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
    pytorch_tags: dict[str, PinnedRef]  # good tags: tag -> (pytorch commit, pinned triton sha); 2.x pins excluded
    pytorch_triton_versions: dict[str, str | None]  # tag -> .ci/docker/triton_version.txt (None: absent)
    pytorch_bad_tags: dict[str, str]  # tag -> the raw (bad) content of its triton.txt
    pytorch_main: PinnedRef
    pytorch_versions: dict[str, str] = field(default_factory=dict)  # tag -> torch version ("2.5.0")
    # Tags whose pin names a Triton 2.x (PyTorch 2.0-2.3): tag -> (pytorch commit, pinned triton sha).
    pytorch_triton2_tags: dict[str, PinnedRef] = field(default_factory=dict)
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
# llvm-project


def _build_llvm(repo: Path, clock: list[int]) -> dict[str, str]:
    git = init_repo(repo, clock)
    copy_template(TEMPLATES / "llvm-project", repo, {})
    pinned = git.commit("[MLIR] Mini llvm-project: LLVM, MLIR, LLD and Clang libraries")
    # The next commit changes a public MLIR API, as upstream LLVM does all the time (it has no
    # stable C++ API): a Triton written against the pinned commit no longer compiles against this one.
    copy_template(TEMPLATES / "llvm-project-other", repo, {})
    other = git.commit("[MLIR][NFC] OpBuilder::create takes a Location first")
    return {"pinned": pinned, "other": other}


def _fork(
    source: Path, dest: Path, clock: list[int], base: str, branch: str, files: Mapping[str, str], message: str
) -> str:
    """A fork of `source`: its history, plus one commit on `branch` (from `base`) that only the fork has."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(source), str(dest)], check=True, capture_output=True)
    git = Git(dest, clock)
    git("remote", "remove", "origin")
    git("checkout", "-q", "-b", branch, base)
    for rel, text in files.items():
        write_file(dest, rel, text)
    return git.commit(message)


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
        work["llvm-project"],
        work["llvm-project-fork"],
        clock,
        llvm["pinned"],
        "release/triton-3.8",
        {"llvm/lib/Transforms/Vectorize/SLPBackport.txt": "Backport of an SLP vectorizer fix.\n"},
        "[SLP] Backport a vectorizer fix for the Triton 3.8 release",
    )
    triton, states, branches = build_triton(work["triton"], clock, {**llvm, "fork": llvm_fork})
    rocm_triton = _fork(
        work["triton"],
        work["rocm-triton"],
        clock,
        triton["release-3.0"],
        "release/pytorch_2.4",
        {"RELEASE_NOTES.md": "# ROCm Triton for PyTorch 2.4\n"},
        "[ROCm] Triton for PyTorch 2.4",
    )
    triton_versions = {sha: s.version for sha, s in states.items()}
    tags, tag_versions, bad, main, torch_versions = build_pytorch(
        work["pytorch"], clock, triton, triton_versions, rocm_triton
    )

    git_root.mkdir()
    for name in (*REPO_NAMES, *FORK_NAMES):
        make_bare(work[name], bare[name])
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
        triton_llvm_pins={sha: s.llvm for sha, s in states.items() if s.llvm},
        triton_branches=branches,
        pytorch_tags={tag: ref for tag, ref in tags.items() if tag not in TRITON_2_TAGS},
        pytorch_triton2_tags={tag: ref for tag, ref in tags.items() if tag in TRITON_2_TAGS},
        pytorch_triton_versions=tag_versions,
        pytorch_bad_tags=bad,
        pytorch_main=main,
        pytorch_versions=torch_versions,
        llvm_fork_commit=llvm_fork,
        rocm_triton_commit=rocm_triton,
        downloads_url=downloads_url,
    )
