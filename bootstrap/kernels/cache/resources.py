"""Registers, stack and spills of a cached kernel, read from its compiled files (no tool needed).

CUDA: the cubin, as `tritondev compile` reads it (kernels/cubin.py: what cuobjdump -res-usage shows).
AMD: the kernel info and code object metadata of the .amdgcn text, read as `tritondev compile` reads them.
Triton 3.x writes neither into its metadata.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.fsutil import read_regular
from bootstrap.kernels.cubin import MAX_KERNEL_FILE_BYTES, cubin_resource_usage
from bootstrap.kernels.usage import parse_amdgcn_info


@dataclass(frozen=True)
class Resources:
    registers: int | None = None  # per thread (VGPRs on AMD)
    stack_bytes: int | None = None  # per-thread local frame (CUDA): spills land here
    spills: int | None = None  # AMD: VGPR + SGPR spills; CUDA: the stack frame / 4, as Triton counts them


def kernel_resources(folder: Path, name: str) -> Resources:
    """What the kernel `name`'s cubin or .amdgcn in `folder` says; unknowns are None."""
    if not name or "/" in name or "\0" in name or name in (".", ".."):
        return Resources()  # the name comes from a metadata file: never a path out of the folder
    try:
        usage = cubin_resource_usage(read_regular(folder / f"{name}.cubin", limit=MAX_KERNEL_FILE_BYTES), name)
    except (OSError, ValueError):
        usage = {}
    if usage.get("registers") is not None:
        stack = usage.get("stack", 0)  # no attribute: no frame
        # Triton's n_spills (and `tritondev compile`'s): the driver's local size, this frame, / 4.
        return Resources(usage.get("registers"), stack, stack // 4)
    try:
        raw = read_regular(folder / f"{name}.amdgcn", limit=MAX_KERNEL_FILE_BYTES)
    except OSError:
        return Resources()
    text = raw.decode("utf-8", errors="replace")
    info = parse_amdgcn_info(text, name)
    spills = info["vgpr_spills"] + info.get("sgpr_spills", 0) if "vgpr_spills" in info else None
    return Resources(info.get("vgprs"), None, spills)
