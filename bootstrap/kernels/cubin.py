"""Registers, stack frame and static shared memory of a CUDA kernel, read from its cubin (no tool run).

The same figures `cuobjdump -res-usage` prints as REG, STACK and SHARED: compared kernel by kernel on an
H200 (Triton 3.6's cubins and nvcc's, CUDA 13 cuobjdump), see docs/verify-and-compile.md.
"""

from __future__ import annotations

import struct

# EIATTR codes in a cubin's .nv.info sections (as cuobjdump reads them).
_EIATTR_FRAME_SIZE = 0x11


_EIATTR_REGCOUNT = 0x2F


_EIFMT_SVAL = 0x04


def cubin_resource_usage(data: bytes, kernel: str) -> dict[str, int]:
    """{"registers", "stack", "shared"} of `kernel` in a CUDA cubin (an ELF64 file); the keys found.

    ptxas records registers and the per-thread stack frame as EIATTR_REGCOUNT / EIATTR_FRAME_SIZE
    attributes (symbol index, value) in the .nv.info sections; the symbol index names the kernel in
    .symtab. Static shared memory is the size of the kernel's `.nv.shared.<kernel>` section (0 without
    one). ValueError when `data` is not such a file (a cache file is outside input: truncated, or
    another format).
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
        name = section_name(sec[0])
        if name == f".nv.shared.{kernel}":
            usage["shared"] = sec[5]
        if not name.startswith(".nv.info"):
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
    if "registers" in usage:  # a kernel of this cubin: no frame attribute or shared section means none
        usage.setdefault("stack", 0)
        usage.setdefault("shared", 0)
    return usage
