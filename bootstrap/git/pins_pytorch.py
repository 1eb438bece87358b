"""PyTorch's Triton pin files, and which one (and which Triton repository) a backend uses at a ref.

- `.ci/docker/ci_commit_pins/triton.txt` (older refs: `.github/ci_commit_pins/triton.txt`): the
  CUDA Triton, a triton-lang/triton commit.
- ROCm: before PyTorch 2.5 its wheels were built from `triton-rocm.txt`, a commit of the ROCm fork
  (ROCmSoftwarePlatform/triton, later ROCm/triton); "Triton commit got unified in PyTorch 2.5": from
  then on ROCm uses triton.txt as well (pytorch/builder manywheel/build_rocm.sh @ d46373ed; PyTorch
  .ci/docker/common/install_triton.sh @ 0d4d06d7 for the fork's URL). Which applies is read from the
  ref's own version.txt.
- `triton-xpu.txt` pins intel/intel-xpu-backend-for-triton, `triton-cpu.txt` triton-lang/triton-cpu:
  forks with builds of their own, which tritondev does not build (UNSUPPORTED_BACKENDS).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bootstrap.core.errors import MismatchError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.git.refs import parse_pin_file

PIN_DIRS = (".ci/docker/ci_commit_pins", ".github/ci_commit_pins")
TRITON_VERSION_FILE = ".ci/docker/triton_version.txt"
TORCH_VERSION_FILE = "version.txt"
ROCM_PIN = "triton-rocm.txt"
UNIFIED_PIN = "triton.txt"
UNIFIED_SINCE = (2, 5)  # the first PyTorch whose ROCm wheels use triton.txt
ROCM_TRITON_URL = "https://github.com/ROCm/triton.git"


class PinReader(Protocol):
    @property
    def description(self) -> str: ...

    def read(self, path: str) -> str | None: ...


def torch_version_at(reader: PinReader) -> tuple[int, int] | None:
    """(major, minor) of PyTorch at the ref, from its version.txt ("2.5.0a0"); None when it says none."""
    text = reader.read(TORCH_VERSION_FILE)
    match = re.match(r"^\s*(\d+)\.(\d+)", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass(frozen=True)
class PytorchPin:
    commit: str
    path: str  # the pin file read
    rocm_fork: bool = False  # a triton-rocm.txt pin: a commit of the ROCm fork, not of triton-lang/triton
    notes: list[str] = field(default_factory=list)


def _pin_names(reader: PinReader, backend: str, notes: list[str]) -> tuple[str, ...]:
    if backend != "amd":
        return (UNIFIED_PIN,)
    version = torch_version_at(reader)
    if version is None or version < UNIFIED_SINCE:
        return ROCM_PIN, UNIFIED_PIN
    if any(reader.read(f"{folder}/{ROCM_PIN}") is not None for folder in PIN_DIRS):
        notes.append(f"{ROCM_PIN} ignored: from PyTorch 2.5 on ROCm uses the unified {UNIFIED_PIN} pin")
    return (UNIFIED_PIN,)


def pytorch_pin(reader: PinReader, backend: str) -> PytorchPin:
    """The Triton commit PyTorch pins for `backend` at the reader's ref, and the file it came from."""
    notes: list[str] = []
    names = _pin_names(reader, backend, notes)
    for name in names:
        for folder in PIN_DIRS:
            path = f"{folder}/{name}"
            text = reader.read(path)
            if text is None:
                continue
            if backend == "amd" and name == UNIFIED_PIN and ROCM_PIN in names:
                notes.append(f"PyTorch has no {ROCM_PIN} at this ref; AMD uses the unified {UNIFIED_PIN} pin")
            commit = parse_pin_file(text, f"{path} at {reader.description}")
            return PytorchPin(commit, path, name == ROCM_PIN, notes)
    wanted = " or ".join(f"{d}/{names[0]}" for d in PIN_DIRS)
    raise MismatchError(
        f"no Triton pin at {reader.description}: neither {wanted} exists",
        fix="check --torch-ref (PyTorch has pinned Triton since v2.0), or pass --triton-commit SHA",
    )


def read_triton_version(reader: PinReader) -> str | None:
    text = reader.read(TRITON_VERSION_FILE)
    if text is None:
        return None
    value = text.strip()
    return value if re.match(r"^\d+\.\d+(\.\d+)?$", value) else None


def installed_torch_requirement(site_packages: tuple[Path, ...] | list[Path]) -> tuple[str, str] | None:
    """(torch version, its `Requires-Dist: triton==X` requirement) of the torch installed there, read from its
    METADATA as text; what is known of the pin without the network. None without torch or such a line."""

    for folder in site_packages:
        for info in sorted(folder.glob("torch-*.dist-info")):
            try:
                text = read_regular_text(info / "METADATA")
            except (OSError, ValueError):
                continue
            version = re.search(r"^Version:\s*(\S+)", text or "", re.M)
            wanted = re.search(r"^Requires-Dist:\s*((?:pytorch-)?triton\b[^;\n]*)", text or "", re.M | re.I)
            if version and wanted:
                return version.group(1), wanted.group(1).strip().replace(" ", "")
    return None
