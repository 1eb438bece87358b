"""SASS of a cubin, from the first nvdisasm that can read it, and the kernel's resource usage (read
from the cubin itself: kernels/cubin.py).

Triton's bundled nvdisasm comes first (they match its ptxas); when one cannot decode the cubin's
architecture (a bundled 12.8 nvdisasm and sm_121a), the CUDA toolkit's ($CUDA_HOME, /usr/local/cuda,
PATH: kernels.nvidia_tools) gets its turn, and the report names the one that wrote the SASS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.fsutil import read_regular
from bootstrap.core.io.writes import replace_text
from bootstrap.core.process.runner import Result, Runner
from bootstrap.kernels.cubin import MAX_KERNEL_FILE_BYTES, cubin_resource_usage


@dataclass
class CubinReading:
    files: dict[str, str] = field(default_factory=dict)  # "sass" -> path, when written
    usage: dict[str, int] | None = None  # kernels/cubin.py's reading: registers, stack, shared
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sass_by: str | None = None


def _last_line(result: Result) -> str:
    lines = (result.stderr or result.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit status {result.returncode}"


def _disassemble(runner: Runner, nvdisasm: str, cubin: Path) -> Result:
    # -ndf: skip the dataflow analysis, which only feeds life-range output; the listing is the same and
    # it costs a quarter of nvdisasm's time. Older nvdisasm without it: plain -c.
    result = runner.capture([nvdisasm, "-c", "-ndf", cubin], step="nvdisasm", check=False)
    if not result.ok and "option" in result.stderr.lower():
        result = runner.capture([nvdisasm, "-c", cubin], step="nvdisasm", check=False)
    return result


def read_cubin(runner: Runner, cubin: Path, kernel: str, nvdisasms: list[str]) -> CubinReading:
    """SASS next to the cubin (KERNEL.sass) and the kernel's register/stack use; what failed, as warnings."""
    reading = CubinReading()
    refused: list[str] = []
    for nvdisasm in nvdisasms:
        result = _disassemble(runner, nvdisasm, cubin)
        if result.ok:
            sass = cubin.with_suffix(".sass")
            replace_text(sass, result.stdout, verbatim=True)
            sass.chmod(cubin.stat().st_mode & 0o777)  # like the stages beside it, not private
            reading.files["sass"], reading.sass_by = str(sass), nvdisasm
            break
        refused.append(f"{nvdisasm} could not disassemble {cubin.name}: {_last_line(result)}")
    if not nvdisasms:
        reading.warnings.append(
            "no nvdisasm found (Triton's bundled one, $CUDA_HOME, /usr/local/cuda, PATH): SASS not written"
        )
    elif reading.sass_by is None:
        reading.warnings += refused
    else:
        reading.notes += [f"{line}; SASS by {reading.sass_by}" for line in refused]
    try:
        found = cubin_resource_usage(read_regular(cubin, limit=MAX_KERNEL_FILE_BYTES), kernel)
    except (OSError, ValueError) as exc:
        reading.warnings.append(f"registers and spills not read from {cubin.name}: {exc}")
        return reading
    reading.usage = found if "registers" in found else None
    if reading.usage is None:
        reading.warnings.append(f"{cubin.name} records no registers for {kernel}")
    return reading
