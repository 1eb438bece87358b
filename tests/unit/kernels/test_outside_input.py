"""Parsers of what the machine hands over: nvidia-smi and rocminfo output, cubin files in the cache.

Whatever a driver tool prints or a cache file holds, the parser answers or (for a cubin) raises
ValueError; nothing else escapes, so `cache ls` and doctor never crash on it.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.kernels.cache.resources import cubin_resource_usage
from bootstrap.kernels.gpus import Gpu, parse_gpu_query, parse_nvidia_smi, parse_rocminfo

SETTINGS = settings(database=None, deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])

# `nvidia-smi --query-gpu=index,name,compute_cap,driver_version --format=csv,noheader` (no GPU on the
# test machines to produce it live); the second GPU's name holds a comma.
QUERY = "0, NVIDIA H100 80GB HBM3, 9.0, 570.124.06\n1, NVIDIA GB10, Rev. A, 12.1, 580.95.05\n2, Tesla, [N/A], 1\n"


def test_gpu_query_and_targets() -> None:
    gpus = parse_gpu_query(QUERY)
    assert gpus[:2] == (
        Gpu(0, "NVIDIA H100 80GB HBM3", 90, "570.124.06"),
        Gpu(1, "NVIDIA GB10, Rev. A", 121, "580.95.05"),
    )
    assert gpus[2].arch is None and gpus[2].target is None
    info = parse_nvidia_smi(QUERY, "")
    assert info.targets == ["cuda:90", "cuda:121"]
    assert info.driver == "570.124.06" and info.cuda is None  # the driver from the query when there is no banner


def test_rocminfo_names_each_gpu_arch_once() -> None:
    text = "\n".join([
        "Agent 1", "  Name:                    AMD EPYC",
        "Agent 2", "  Name:                    gfx942", "  Marketing Name:          AMD Instinct MI300X",
        "      Name:                    amdgcn-amd-amdhsa--gfx942",
        "Agent 3", "  Name:                    gfx942", "  Name:                    gfx1100",
    ])
    assert parse_rocminfo(text) == ["gfx942", "gfx1100"]


@SETTINGS
@given(st.text(), st.text())
def test_any_nvidia_smi_output_parses(query: str, banner: str) -> None:
    info = parse_nvidia_smi(query, banner)
    assert all(g.arch is None or g.arch >= 0 for g in info.gpus)
    assert all(t.startswith("cuda:") for t in info.targets)


@SETTINGS
@given(st.lists(st.tuples(st.text(alphabet="0123456789 ,.[]/NA", max_size=6), st.text("GTXRA 0123,-", max_size=8)),
                max_size=4))
def test_csv_like_lines_parse(rows: list[tuple[str, str]]) -> None:
    text = "\n".join(f"{i}, {name}, {cc}, 570.1" for i, (cc, name) in enumerate(rows))
    assert len(parse_gpu_query(text)) <= len(rows)
    assert isinstance(parse_rocminfo(text), list)


def _elf_header(shoff: int, shentsize: int, shnum: int, shstrndx: int) -> bytes:
    header = bytearray(64)
    header[:5] = b"\x7fELF\x02"
    struct.pack_into("<Q", header, 0x28, shoff)
    struct.pack_into("<HHH", header, 0x3A, shentsize, shnum, shstrndx)
    return bytes(header)


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_are_a_cubin_or_a_value_error(data: bytes) -> None:
    for candidate in (data, b"\x7fELF\x02" + data):
        try:
            assert isinstance(cubin_resource_usage(candidate, "kernel"), dict)
        except ValueError:
            pass


@SETTINGS
@given(st.integers(0, 2**16), st.integers(0, 128), st.integers(0, 64), st.integers(0, 70), st.binary(max_size=300))
def test_elf_headers_pointing_anywhere_are_read_or_a_value_error(
    shoff: int, shentsize: int, shnum: int, shstrndx: int, tail: bytes
) -> None:
    try:
        assert isinstance(cubin_resource_usage(_elf_header(shoff, shentsize, shnum, shstrndx) + tail, "kernel"), dict)
    except ValueError:
        pass


def test_not_an_elf_file() -> None:
    with pytest.raises(ValueError, match="ELF64"):
        cubin_resource_usage(b"\x7fELF\x01", "kernel")
