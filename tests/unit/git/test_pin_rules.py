"""Pure rules of pin resolution: installed torch -> PyTorch ref, and which pin file a backend reads."""

from __future__ import annotations

import pytest

from bootstrap.core.errors import ConfigError, MismatchError
from bootstrap.core.settings.settings import load_settings
from bootstrap.git.pins import parse_torch_version_py, read_pytorch_pin, read_triton_version, torch_ref_for
from bootstrap.git.pins_pytorch import pytorch_pin

SHA = "5d6048aa0a324e090ada215b609ea76620133845"  # tip of release/3.7.x, pinned by torch 2.12.1
TORCH_COMMIT = "cf30153c4c131c8164ee7798e5022d810682e2cb"

# torch/version.py as the CPU wheel of torch 2.13.0 ships it
VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']
__version__ = '2.13.0+cpu'
debug = False
cuda: Optional[str] = None
git_version = 'cf30153c4c131c8164ee7798e5022d810682e2cb'
hip: Optional[str] = None
"""


def test_version_py_is_read_without_importing() -> None:
    assert parse_torch_version_py(VERSION_PY) == ("2.13.0+cpu", TORCH_COMMIT)
    assert parse_torch_version_py("x = 1\n") == (None, None)


def test_installed_wheel_version_py_if_present() -> None:
    # The real torch wheel in the shared test venv, when it was created on this machine.
    from tests.support.venvs import CACHE

    found = sorted(CACHE.glob("*/lib/python*/site-packages/torch/version.py"))
    if not found:
        pytest.skip("no cached venv with torch on this machine")
    version, git_version = parse_torch_version_py(found[0].read_text())
    assert version is not None and version[0].isdigit()
    assert git_version is not None and len(git_version) == 40


@pytest.mark.parametrize(
    ("version", "ref"),
    [
        ("2.13.0+cpu", "v2.13.0"),
        ("2.5.1+cu124", "v2.5.1"),
        ("2.5.1", "v2.5.1"),
        ("2.6.0rc2", "v2.6.0-rc2"),
        ("2.7.0.dev20250101+cu126", TORCH_COMMIT),  # nightly: its commit
        ("2.7.0a0+git1234567", TORCH_COMMIT),  # source build
    ],
)
def test_torch_ref_for(version: str, ref: str) -> None:
    assert torch_ref_for(version, TORCH_COMMIT)[0] == ref


def test_nightly_without_commit_gives_none() -> None:
    assert torch_ref_for("2.7.0.dev20250101", "Unknown")[0] is None


class DictReader:
    description = "test files"
    commit = None

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.asked: list[str] = []

    def read(self, path: str) -> str | None:
        self.asked.append(path)
        return self.files.get(path)


def test_nvidia_reads_docker_pin_then_old_github_pin() -> None:
    new = DictReader({".ci/docker/ci_commit_pins/triton.txt": SHA + "\n", ".ci/docker/triton_version.txt": "3.7.1\n"})
    assert read_pytorch_pin(new, "nvidia")[:2] == (SHA, ".ci/docker/ci_commit_pins/triton.txt")
    assert read_triton_version(new) == "3.7.1"
    old = DictReader({".github/ci_commit_pins/triton.txt": SHA + "\n"})  # v2.0.x
    assert read_pytorch_pin(old, "nvidia")[:2] == (SHA, ".github/ci_commit_pins/triton.txt")
    assert read_triton_version(old) is None


def test_amd_reads_rocm_pin_and_falls_back_to_the_unified_pin() -> None:
    rocm = "1" * 40
    both = DictReader({".ci/docker/ci_commit_pins/triton.txt": SHA, ".ci/docker/ci_commit_pins/triton-rocm.txt": rocm})
    commit, path, notes = read_pytorch_pin(both, "amd")
    assert (commit, path, notes) == (rocm, ".ci/docker/ci_commit_pins/triton-rocm.txt", [])
    unified = DictReader({".ci/docker/ci_commit_pins/triton.txt": SHA})
    commit, path, notes = read_pytorch_pin(unified, "amd")
    assert (commit, path) == (SHA, ".ci/docker/ci_commit_pins/triton.txt") and "unified" in notes[0]


@pytest.mark.parametrize(
    ("torch_version", "pin", "fork"),
    [
        ("2.4.1", "triton-rocm.txt", True),  # ROCm wheels from the ROCm fork
        ("2.4.0a0", "triton-rocm.txt", True),
        ("2.5.0", "triton.txt", False),  # "Triton commit got unified in PyTorch 2.5"
        ("2.15.0a0", "triton.txt", False),
    ],
)
def test_amd_pin_file_by_pytorch_version(torch_version: str, pin: str, fork: bool) -> None:
    rocm = "1" * 40
    files = {
        "version.txt": torch_version + "\n",
        ".ci/docker/ci_commit_pins/triton.txt": SHA,
        ".ci/docker/ci_commit_pins/triton-rocm.txt": rocm,
    }
    chosen = pytorch_pin(DictReader(files), "amd")
    assert chosen.path == f".ci/docker/ci_commit_pins/{pin}" and chosen.rocm_fork is fork
    assert chosen.commit == (rocm if fork else SHA)
    if not fork:  # a stale triton-rocm.txt is named and left alone
        assert "triton-rocm.txt ignored" in chosen.notes[0]
    assert not pytorch_pin(DictReader(files), "nvidia").rocm_fork


@pytest.mark.parametrize(
    ("value", "says"),
    [("xpu", "intel/intel-xpu-backend-for-triton"), ("XPU", "triton-xpu.txt"), ("cpu", "triton-lang/triton-cpu")],
)
def test_fork_backends_are_refused_with_their_reason(value: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({"backend": value}, environ={})
    assert says in info.value.message and "not supported" in info.value.message
    assert info.value.fix is not None and "--backend nvidia" in info.value.fix


def test_missing_and_malformed_pins() -> None:
    with pytest.raises(MismatchError, match="no Triton pin"):
        read_pytorch_pin(DictReader({}), "nvidia")
    with pytest.raises(MismatchError, match="39 hex digits"):
        read_pytorch_pin(DictReader({".ci/docker/ci_commit_pins/triton.txt": SHA[:39]}), "nvidia")
    assert read_triton_version(DictReader({".ci/docker/triton_version.txt": "not a version"})) is None
