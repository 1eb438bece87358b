"""Registers, stack and spills of a cached kernel, read from its compiled files (no tool needed).

CUDA: the cubin's .nv.info attributes (what cuobjdump --dump-resource-usage shows). AMD: the
kernel info and code object metadata of the .amdgcn text, read as `tritondev compile` reads them.
Triton 3.x writes neither into its metadata.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.fsutil import read_regular
from bootstrap.kernels.usage import parse_amdgcn_info

_MAX_BINARY_BYTES = 256 << 20  # larger than any kernel: a file this big is not one


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
        usage = cubin_resource_usage(read_regular(folder / f"{name}.cubin", limit=_MAX_BINARY_BYTES), name)
    except (OSError, ValueError):
        usage = {}
    if usage.get("registers") is not None:
        stack = usage.get("stack", 0)  # no attribute: no frame
        # Triton's n_spills (and `tritondev compile`'s): the driver's local size, this frame, / 4.
        return Resources(usage.get("registers"), stack, stack // 4)
    try:
        raw = read_regular(folder / f"{name}.amdgcn", limit=_MAX_BINARY_BYTES)
    except OSError:
        return Resources()
    text = raw.decode("utf-8", errors="replace")
    info = parse_amdgcn_info(text, name)
    spills = info["vgpr_spills"] + info.get("sgpr_spills", 0) if "vgpr_spills" in info else None
    return Resources(info.get("vgprs"), None, spills)


# EIATTR codes in a cubin's .nv.info sections (as cuobjdump reads them).
_EIATTR_FRAME_SIZE = 0x11
_EIATTR_REGCOUNT = 0x2F
_EIFMT_SVAL = 0x04


def cubin_resource_usage(data: bytes, kernel: str) -> dict[str, int]:
    """Registers and per-thread stack frame of `kernel` in a CUDA cubin (an ELF64 file).

    ptxas records them as EIATTR_REGCOUNT / EIATTR_FRAME_SIZE attributes (symbol index, value) in
    the .nv.info section; the symbol index names the kernel in .symtab. ValueError when `data` is
    not such a file (a cache file is outside input: truncated, or another format).
    """
    if data[:4] != b"\x7fELF" or data[4:5] != b"\x02":
        raise ValueError("not an ELF64 file")
    try:
        return _nv_info_usage(data, kernel)
    except (struct.error, IndexError, ValueError, OverflowError) as exc:
        raise ValueError(f"malformed ELF file: {exc}") from None


def _nv_info_usage(data: bytes, kernel: str) -> dict[str, int]:
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def section_name(offset: int) -> str:
        base = sections[shstrndx][4] + offset
        return data[base : data.index(b"\0", base)].decode(errors="replace")

    symbols: dict[int, str] = {}
    for sec in sections:
        if sec[1] == 2:  # SHT_SYMTAB
            strtab = sections[sec[6]][4]
            for index in range(sec[5] // 24):
                st_name = struct.unpack_from("<I", data, sec[4] + index * 24)[0]
                symbols[index] = data[strtab + st_name : data.index(b"\0", strtab + st_name)].decode(errors="replace")
    usage: dict[str, int] = {}
    for sec in sections:
        if not section_name(sec[0]).startswith(".nv.info"):
            continue
        pos, end = sec[4], sec[4] + sec[5]
        while pos + 4 <= end:
            fmt, attr = data[pos], data[pos + 1]
            if fmt != _EIFMT_SVAL:
                pos += 4
                continue
            size = struct.unpack_from("<H", data, pos + 2)[0]
            if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and size == 8:
                symbol, value = struct.unpack_from("<II", data, pos + 4)
                if symbols.get(symbol) == kernel:
                    usage["registers" if attr == _EIATTR_REGCOUNT else "stack"] = value
            pos += 4 + size
    return usage
