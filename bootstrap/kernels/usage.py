"""Resource summaries of compiled kernels, from text the tools print. Pure parsers, unit-tested.

NVIDIA: registers, the stack frame and static shared memory come from the cubin (kernels/cubin.py),
the dynamic shared memory and the launch shape from Triton's metadata. Triton's own `n_spills` is the
driver's local-memory size (the stack frame) divided by 4 (`driver.c`), and so is `spills` here.
AMD: the compiler's "Kernel info" comment block and the amdhsa metadata in the .amdgcn text.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bootstrap.kernels.occupancy import RESERVED_SHARED, occupancy

_INFO_LINE = re.compile(r"^;\s*([A-Za-z][A-Za-z ]*?)\s*[:=]\s*(\d+)")
_YAML_LINE = re.compile(r"^\s*-?\s*\.([a-z_]+):\s+(\S+)\s*$")
_INFO_KEYS = {
    "TotalNumSgprs": "sgprs",
    "NumSgprs": "sgprs",
    "NumVgprs": "vgprs",
    "NumAgprs": "agprs",
    "TotalNumVgprs": "total_vgprs",
    "ScratchSize": "scratch_bytes",
    "Occupancy": "occupancy",
    "LDSByteSize": "lds_static_bytes",
    "codeLenInByte": "code_bytes",
}
_YAML_KEYS = {
    "sgpr_spill_count": "sgpr_spills",
    "vgpr_spill_count": "vgpr_spills",
    "wavefront_size": "wavefront_size",
    "max_flat_workgroup_size": "max_workgroup_size",
    "group_segment_fixed_size": "lds_static_bytes",
    "private_segment_fixed_size": "scratch_bytes",
    "sgpr_count": "sgprs",
    "vgpr_count": "vgprs",
    "agpr_count": "agprs",
}


def parse_amdgcn_info(text: str, kernel: str | None = None) -> dict[str, int]:
    """Kernel info of an .amdgcn listing: VGPRs, SGPRs, AGPRs, spills, scratch, LDS, occupancy.

    The "; Kernel info:" block comes first (what the compiler reports); the amdhsa metadata fills in
    spill counts and anything the block lacks. With several kernels, `kernel` picks one by name.
    """
    info: dict[str, int] = {}
    in_block = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("; Kernel info:"):
            in_block = True
            continue
        if in_block:
            if not stripped.startswith(";"):
                in_block = False
                continue
            match = _INFO_LINE.match(stripped)
            if match:
                key = _INFO_KEYS.get(match.group(1).replace(" ", ""))
                if key is not None and (key not in info or match.group(1) == "TotalNumSgprs"):
                    info[key] = int(match.group(2))
    meta = _amdhsa_kernel(text, kernel)
    for yaml_key, key in _YAML_KEYS.items():
        value = meta.get(yaml_key)
        if value is not None and value.isdigit():
            info.setdefault(key, int(value))
    return info


def _amdhsa_kernel(text: str, kernel: str | None) -> dict[str, str]:
    """The top-level keys of one entry of `amdhsa.kernels` (the YAML between .amdgpu_metadata markers)."""
    start = text.find("amdhsa.kernels:")
    if start < 0:
        return {}
    entries: list[dict[str, str]] = []
    for line in text[start:].splitlines()[1:]:
        if line and not line.startswith(" "):
            break  # the next top-level key (amdhsa.target, ...)
        if line.startswith("  - "):
            entries.append({})
        if not entries:
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent > 4:
            continue  # nested lists (.args) have keys of their own
        match = _YAML_LINE.match(line)
        if match:
            entries[-1][match.group(1)] = match.group(2)
    for entry in entries:
        if kernel is None or entry.get("name") == kernel:
            return entry
    return entries[0] if entries else {}


def _int(metadata: Mapping[str, Any], key: str) -> int | None:
    value = metadata.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class CudaResources:
    """What an NVIDIA kernel uses per launch; None where it could not be read."""

    registers: int | None  # per thread
    spills: int | None  # Triton's n_spills: the stack frame / 4
    local_bytes: int | None  # per thread: the stack frame (spills land here)
    shared_bytes: int | None  # what Triton asks for at launch (dynamic shared memory)
    static_shared_bytes: int | None  # declared in the cubin (e.g. reserved for barriers)
    threads: int | None  # per CTA
    num_warps: int | None
    num_stages: int | None
    num_ctas: int | None
    occupancy_warps: int | None = None  # resident warps per SM (kernels/occupancy.py); None: arch not known
    sm_max_warps: int | None = None  # the most that SM holds

    def to_json(self) -> dict[str, int | None]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class HipResources:
    """What an AMD kernel uses; agprs is left out (not None) on an arch that has none (RDNA)."""

    vgprs: int | None
    sgprs: int | None
    has_agprs: bool
    agprs: int | None
    vgpr_spills: int | None
    sgpr_spills: int | None
    scratch_bytes: int | None
    occupancy: int | None  # waves per SIMD
    lds_bytes: int | None  # what Triton asks for at launch
    lds_static_bytes: int | None
    threads: int | None
    num_warps: int | None
    num_stages: int | None

    def to_json(self) -> dict[str, int | None]:
        found = {k: v for k, v in dataclasses.asdict(self).items() if k != "has_agprs"}
        if not self.has_agprs:
            del found["agprs"]
        return found


def cuda_summary(metadata: Mapping[str, Any], usage: Mapping[str, int] | None, warp_size: int) -> CudaResources:
    """Registers/thread, spills (Triton's n_spills), shared memory, threads per CTA.

    `usage`: kernels/cubin.py's reading of the cubin. Triton's n_spills is the driver's
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4: the per-thread stack frame ptxas reserved, where spilled
    registers go (cuobjdump's STACK; its LOCAL stays 0 even for a kernel that spills kilobytes).
    `tritondev cache ls` reads the same frame from the same reader.
    """
    usage = usage or {}
    num_warps = _int(metadata, "num_warps")
    frame = usage.get("stack")
    registers, shared = usage.get("registers"), _int(metadata, "shared")
    target = metadata.get("target")
    arch = _int(target, "arch") if isinstance(target, Mapping) else None
    # The cubin's static shared memory already holds the 1 KB the system keeps per CTA (seen on sm_90:
    # 1,200 bytes declared, 2,224 in the section); occupancy() adds that KB itself, so it is not counted twice.
    static = max((usage.get("shared") or 0) - RESERVED_SHARED, 0)
    fit = (
        occupancy(arch, registers, (shared or 0) + static, num_warps)
        if arch is not None and registers is not None and num_warps is not None
        else None
    )
    return CudaResources(
        registers=usage.get("registers"),
        spills=frame // 4 if frame is not None else None,
        local_bytes=frame,
        shared_bytes=_int(metadata, "shared"),
        static_shared_bytes=usage.get("shared"),
        threads=None if num_warps is None else num_warps * (_int(metadata, "warp_size") or warp_size),
        num_warps=num_warps,
        num_stages=_int(metadata, "num_stages"),
        num_ctas=_int(metadata, "num_ctas"),
        occupancy_warps=fit.warps if fit else None,
        sm_max_warps=fit.max_warps if fit else None,
    )


def has_agprs(arch: str) -> bool:
    """Accumulation VGPRs exist on CDNA (gfx908, gfx90a, gfx94x, gfx950), not on RDNA (gfx10-12) or older GCN."""
    return (
        arch.startswith("gfx9")
        and arch[:6] not in ("gfx900", "gfx902", "gfx904", "gfx906", "gfx909")
        and not arch.startswith("gfx90c")
    )


def hip_summary(
    metadata: Mapping[str, Any], info: Mapping[str, int], warp_size: int, arch: str | None = None
) -> HipResources:
    """VGPRs, SGPRs, AGPRs (where the arch has them: has_agprs), spills, scratch, occupancy
    (waves/SIMD), LDS (Triton's dynamic + static)."""
    num_warps = _int(metadata, "num_warps")
    return HipResources(
        vgprs=info.get("vgprs"),
        sgprs=info.get("sgprs"),
        has_agprs=arch is None or has_agprs(arch),
        agprs=info.get("agprs"),
        vgpr_spills=info.get("vgpr_spills"),
        sgpr_spills=info.get("sgpr_spills"),
        scratch_bytes=info.get("scratch_bytes"),
        occupancy=info.get("occupancy"),
        lds_bytes=_int(metadata, "shared"),
        lds_static_bytes=info.get("lds_static_bytes"),
        threads=None if num_warps is None else num_warps * (_int(metadata, "warp_size") or warp_size),
        num_warps=num_warps,
        num_stages=_int(metadata, "num_stages"),
    )
