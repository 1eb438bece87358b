"""The test world's mini PyTorch: only the files that name the Triton pin, at its release tags and main."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from tests.world.gitrepo import init_repo, write_file

PIN_FILE = ".ci/docker/ci_commit_pins/triton.txt"
ROCM_PIN_FILE = ".ci/docker/ci_commit_pins/triton-rocm.txt"
XPU_PIN_FILE = ".ci/docker/ci_commit_pins/triton-xpu.txt"
VERSION_FILE = ".ci/docker/triton_version.txt"
OLD_PIN_FILE = ".github/ci_commit_pins/triton.txt"


class PinnedRef(NamedTuple):
    """A PyTorch ref: its commit, and the Triton commit its pin file names."""

    commit: str
    triton: str


# (tag, torch version, triton label, triton_version.txt); v2.0.0 predates .ci/docker pins. Which Triton
# release each torch release requires: docs/test-world.md (conformance table).
PYTORCH_RELEASES = [
    ("v2.3.1", "2.3.1", "release-2.3", "2.3.1"),
    ("v2.4.1", "2.4.1", "release-3.0", "3.0.0"),
    ("v2.5.0", "2.5.0", "release-3.1", "3.1.0"),
    ("v2.6.0", "2.6.0", "release-3.2", "3.2.0"),
    ("v2.7.1", "2.7.1", "release-3.3", "3.3.1"),
    ("v2.8.0", "2.8.0", "release-3.4", "3.4.0"),
    ("v2.9.0", "2.9.0", "release-3.5", "3.5.0"),
    ("v2.12.1", "2.12.1", "release-3.7", "3.7.1"),
    ("v2.14.0", "2.14.0", "release-3.8", "3.8.0"),
    ("v9.9.6-llvm-mismatch", "9.9.6", "other-llvm", "3.8.0"),
]


def pytorch_common(repo: Path, version: str) -> None:
    write_file(repo, "README.md", "# PyTorch (miniature)\n\nOnly the files that name the Triton pin.\n")
    write_file(repo, "version.txt", version + "\n")
    write_file(repo, "torch/__init__.py", '"""torch (miniature source tree)."""\n')


# intel/intel-xpu-backend-for-triton commit in PyTorch's triton-xpu.txt (the world has no such repository).
XPU_PIN = "fd464927dfaafb392dedfcbf3c1f288196f502ed"


def pytorch_pins(
    repo: Path, triton_sha: str, triton_version: str | None, pin_text: str | None = None, rocm: str | None = None
) -> None:
    """Pin files of one PyTorch commit; triton-rocm.txt only where `rocm` is given (before the pins
    were unified in 2.5, and one stale copy after), triton-xpu.txt always."""
    text = pin_text if pin_text is not None else triton_sha + "\n"
    write_file(repo, PIN_FILE, text)
    if rocm is not None:
        write_file(repo, ROCM_PIN_FILE, rocm + "\n")
    elif (repo / ROCM_PIN_FILE).exists():
        (repo / ROCM_PIN_FILE).unlink()
    write_file(repo, XPU_PIN_FILE, XPU_PIN + "\n")
    if triton_version is not None:
        write_file(repo, VERSION_FILE, triton_version + "\n")
    old = repo / OLD_PIN_FILE
    old.parent.mkdir(parents=True, exist_ok=True)
    if old.exists() or old.is_symlink():
        old.unlink()
    # Since PR #95233 (Feb 2023) the old path is a symlink into the Docker context.
    old.symlink_to("../../.ci/docker/ci_commit_pins/triton.txt")


# PyTorch releases that pin a Triton 2.x (torch 2.0-2.3), which tritondev refuses.
TRITON_2_TAGS = ("v2.0.0", "v2.3.1")


def build_pytorch(
    repo: Path, clock: list[int], triton: dict[str, str], triton_versions: dict[str, str], rocm_triton: str
) -> tuple[dict[str, PinnedRef], dict[str, str | None], dict[str, str], PinnedRef, dict[str, str]]:
    """Returns (tags, triton_version.txt per tag, bad tags, main, torch version per tag); `tags` holds
    every good tag, those pinning Triton 2.x (TRITON_2_TAGS) included."""
    git = init_repo(repo, clock)
    tags: dict[str, PinnedRef] = {}
    versions: dict[str, str | None] = {}
    torch_versions: dict[str, str] = {}

    # v2.0.0: only .github/ci_commit_pins/triton.txt, a regular file, no triton_version.txt; it pins
    # Triton 2.0 (openai/triton release/2.0.x).
    pytorch_common(repo, "2.0.0")
    write_file(repo, OLD_PIN_FILE, triton["release-2.0"] + "\n")
    sha = git.commit("Release 2.0.0")
    git.tag("v2.0.0")
    tags["v2.0.0"], versions["v2.0.0"], torch_versions["v2.0.0"] = (
        PinnedRef(sha, triton["release-2.0"]),
        None,
        "2.0.0",
    )
    git("branch", "release/2.0")

    for tag, version, label, triton_version in PYTORCH_RELEASES:
        minor = ".".join(version.split(".")[:2])
        # main moves on (with the main-branch pin), then the release branch is cut and its pin updated.
        pytorch_common(repo, f"{minor}.0a0")
        pytorch_pins(repo, triton["root-hash"], triton_versions[triton["root-hash"]])
        git.commit(f"Update to {minor} development")
        git("checkout", "-q", "-B", f"release/{minor}")
        pytorch_common(repo, version)
        # ROCm wheels read triton-rocm.txt (a ROCm/triton commit) before 2.5; v2.5.0 keeps a stale copy.
        rocm = rocm_triton if tag in ("v2.4.1", "v2.5.0") else None
        pytorch_pins(repo, triton[label], triton_version, rocm=rocm)
        sha = git.commit(f"[release/{minor}] Update triton pin to the release/{triton_version[:3]}.x head")
        git.tag(tag, f"PyTorch {version}")
        tags[tag], versions[tag], torch_versions[tag] = PinnedRef(sha, triton[label]), triton_version, version
        git("checkout", "-q", "main")

    pytorch_common(repo, "2.15.0a0")
    pytorch_pins(repo, triton["main"], triton_versions[triton["main"]])
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
        pytorch_pins(repo, ok, "3.8.0", pin_text=text)
        git.commit(f"Broken pin for {tag}")
        git.tag(tag)
    git("checkout", "-q", "main")
    return tags, versions, bad, PinnedRef(main_sha, triton["main"]), torch_versions
