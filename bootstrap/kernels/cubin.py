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
_SHT_SYMTAB = 2
_SECTION_HEADER_SIZE = 64  # Elf64_Shdr
# Larger than any compiled kernel: a cubin (or .amdgcn) file this big is not one, and is not read.
MAX_KERNEL_FILE_BYTES = 256 << 20


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
    if not kernel or "\0" in kernel:
        return {}  # no ELF symbol has such a name (and a NUL would end the name compared in place)
    try:
        return _nv_info_usage(data, kernel)
    except (struct.error, IndexError, ValueError, OverflowError) as exc:
        raise ValueError(f"malformed ELF file: {exc}") from None


def _nv_info_usage(data: bytes, kernel: str) -> dict[str, int]:
    # Every step is bounded by the file's size, whatever a crafted header says: names are compared in
    # place (no search for their end), one symbol table is read, and the .nv.info bytes scanned in all
    # may not exceed the file (ptxas writes them once each).
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize != _SECTION_HEADER_SIZE:
        raise ValueError(f"section headers of {shentsize} bytes, not {_SECTION_HEADER_SIZE}")
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[shstrndx][4]
    wanted = kernel.encode("utf-8", "surrogateescape") + b"\0"

    def named(offset: int, name: bytes) -> bool:
        return data[offset : offset + len(name)] == name

    kernel_symbols: set[int] = set()
    symtab = next((sec for sec in sections if sec[1] == _SHT_SYMTAB), None)
    if symtab is not None:
        strtab = sections[symtab[6]][4]
        for index in range(min(symtab[5], len(data)) // 24):
            if named(strtab + struct.unpack_from("<I", data, symtab[4] + index * 24)[0], wanted):
                kernel_symbols.add(index)
    usage: dict[str, int] = {}
    scanned = 0
    for sec in sections:
        if named(names_at + sec[0], b".nv.shared." + wanted):
            usage["shared"] = sec[5]
        if not named(names_at + sec[0], b".nv.info"):
            continue
        scanned += sec[5]
        if scanned > len(data):
            raise ValueError(".nv.info sections larger than the file")
        pos, end = sec[4], sec[4] + sec[5]
        while pos + 4 <= end:
            fmt, attr = data[pos], data[pos + 1]
            if fmt != _EIFMT_SVAL:
                pos += 4
                continue
            size = struct.unpack_from("<H", data, pos + 2)[0]
            if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and size == 8:
                symbol, value = struct.unpack_from("<II", data, pos + 4)
                if symbol in kernel_symbols:
                    usage["registers" if attr == _EIATTR_REGCOUNT else "stack"] = value
            pos += 4 + size
    if "registers" in usage:  # a kernel of this cubin: no frame attribute or shared section means none
        usage.setdefault("stack", 0)
        usage.setdefault("shared", 0)
    return usage
