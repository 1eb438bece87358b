"""An independent reader of a cubin's per-kernel attributes (the ELF `.nv.info` section), for tests.

tritondev reads registers from the cubin with its own reader (bootstrap/kernels/cubin.py). This one is
written apart from it, so that one mistake in both cannot pass: the tests check tritondev against what
the cubin itself records, read here straight from the ELF file with the standard library.
"""

from __future__ import annotations

import struct
from pathlib import Path

EIATTR_REGCOUNT = 0x2F  # (symbol index, registers per thread)
EIATTR_MAX_THREADS = 0x10  # (x, y, z) threads per block the kernel was compiled for


def _sections(data: bytes) -> dict[str, bytes]:
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not a 64-bit ELF file"
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i: int) -> tuple[int, ...]:
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)

    names = header(shstrndx)
    found = {}
    for i in range(shnum):
        h = header(i)
        start = names[4] + h[0]
        found[data[start : data.index(b"\0", start)].decode()] = data[h[4] : h[4] + h[5]]
    return found


def _attributes(blob: bytes) -> list[tuple[int, bytes | int | None]]:
    out: list[tuple[int, bytes | int | None]] = []
    i = 0
    while i + 2 <= len(blob):
        fmt, attr = blob[i], blob[i + 1]
        i += 2
        value: bytes | int | None
        if fmt == 4:  # EIFMT_SVAL: u16 size, payload
            (size,) = struct.unpack_from("<H", blob, i)
            value = blob[i + 2 : i + 2 + size]
            i += 2 + size
        elif fmt == 3:  # EIFMT_HVAL: u16
            (value,) = struct.unpack_from("<H", blob, i)
            i += 2
        else:  # EIFMT_BVAL / EIFMT_NVAL: two bytes
            value = blob[i] if fmt == 2 else None
            i += 2
        out.append((attr, value))
    return out


def registers(cubin: Path) -> int:
    sections = _sections(cubin.read_bytes())
    for attr, value in _attributes(sections[".nv.info"]):
        if attr == EIATTR_REGCOUNT and isinstance(value, bytes):
            return int(struct.unpack_from("<II", value)[1])
    raise AssertionError("no EIATTR_REGCOUNT")


def max_threads(cubin: Path, kernel: str) -> int:
    sections = _sections(cubin.read_bytes())
    for attr, value in _attributes(sections[f".nv.info.{kernel}"]):
        if attr == EIATTR_MAX_THREADS and isinstance(value, bytes):
            x, y, z = struct.unpack_from("<III", value)
            return int(x * y * z)
    raise AssertionError("no EIATTR_MAX_THREADS")
