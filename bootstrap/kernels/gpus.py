"""The GPUs of this machine, as their drivers' tools report them: nvidia-smi (NVIDIA), rocminfo (AMD).

One reading for every part that asks: the kernel cache (which targets are local: cuda:90,
hip:gfx942) and doctor (driver, its CUDA version, each GPU's arch). Parsing is pure; the readers
run the tool through the runner with a timeout (a wedged driver can hang nvidia-smi).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.process.runner import Runner

NVIDIA_QUERY = ("--query-gpu=index,name,compute_cap,driver_version", "--format=csv,noheader")
TIMEOUT = 30.0

_DRIVER = re.compile(r"Driver Version:\s*([\d.]+)")
_CUDA = re.compile(r"CUDA Version:\s*([\d.]+)")
_ROCM_ARCH = re.compile(r"^\s*Name:\s+(gfx[0-9a-f]+)\s*$", re.M)


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    arch: int | None  # compute capability as 90, 121, ...
    driver: str

    @property
    def target(self) -> str | None:
        return None if self.arch is None else f"cuda:{self.arch}"


@dataclass(frozen=True)
class GpuInfo:
    driver: str | None
    cuda: str | None  # the highest CUDA version the driver supports ("CUDA Version: 12.8")
    gpus: tuple[Gpu, ...]

    @property
    def targets(self) -> list[str]:
        return list(dict.fromkeys(g.target for g in self.gpus if g.target))


def _compute_capability(text: str) -> int | None:
    major, _, minor = text.strip().partition(".")
    if not major.isdigit() or not (minor.isdigit() or minor == ""):
        return None  # "[N/A]", or a format this parser does not know
    return int(major) * 10 + int(minor or 0)


def parse_gpu_query(query: str) -> tuple[Gpu, ...]:
    """`nvidia-smi --query-gpu=index,name,compute_cap,driver_version --format=csv,noheader` output."""
    gpus: list[Gpu] = []
    for line in query.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 4:
            continue
        # A GPU name may hold commas: the index comes first, arch and driver last.
        index, name, cc, driver = parts[0], ", ".join(parts[1:-2]), parts[-2], parts[-1]
        gpus.append(Gpu(int(index) if index.isdigit() else len(gpus), name, _compute_capability(cc), driver))
    return tuple(gpus)


def parse_nvidia_smi(query: str, banner: str) -> GpuInfo:
    """The GPU query and the plain `nvidia-smi` banner (which alone names the driver's CUDA version)."""
    gpus = parse_gpu_query(query)
    driver = _DRIVER.search(banner)
    cuda = _CUDA.search(banner)
    return GpuInfo(
        driver.group(1) if driver else (gpus[0].driver if gpus else None),
        cuda.group(1) if cuda else None,
        gpus,
    )


def read_nvidia(runner: Runner, smi: str, *, step: str, cwd: Path | None = None, banner: bool = True) -> GpuInfo:
    """What nvidia-smi says; banner=False skips the second run that reads the driver's CUDA version."""
    query = runner.capture([smi, *NVIDIA_QUERY], step=step, check=False, timeout=TIMEOUT, cwd=cwd)
    header = runner.capture([smi], step=step, check=False, timeout=TIMEOUT, cwd=cwd) if banner else None
    return parse_nvidia_smi(query.stdout if query.ok else "", header.stdout if header is not None and header.ok else "")


def parse_rocminfo(text: str) -> list[str]:
    """The gfx names of the GPU agents `rocminfo` lists, in its order, each once."""
    return list(dict.fromkeys(_ROCM_ARCH.findall(text)))


def read_rocm(runner: Runner, rocminfo: str, *, step: str) -> list[str]:
    result = runner.capture([rocminfo], step=step, check=False, timeout=TIMEOUT)
    return parse_rocminfo(result.stdout) if result.ok else []


def local_gpu_targets(runner: Runner) -> list[str]:
    """Targets of the GPUs on this machine ("cuda:90", "hip:gfx942"); [] without a GPU or its tools."""
    targets: list[str] = []
    smi = runner.which("nvidia-smi")
    if smi:
        targets += read_nvidia(runner, smi, step="probe-gpu", banner=False).targets
    rocminfo = runner.which("rocminfo")
    if rocminfo:
        targets += [f"hip:{arch}" for arch in read_rocm(runner, rocminfo, step="probe-gpu")]
    return list(dict.fromkeys(targets))
