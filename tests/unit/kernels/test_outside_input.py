"""Parsers of what the machine hands over: nvidia-smi and rocminfo output, cubin files in the cache.

Whatever a driver tool prints or a cache file holds, the parser answers or (for a cubin) raises
ValueError; nothing else escapes, so `cache ls` and doctor never crash on it.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.kernels.cubin import cubin_resource_usage
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
    text = "\n".join(
        [
            "Agent 1",
            "  Name:                    AMD EPYC",
            "Agent 2",
            "  Name:                    gfx942",
            "  Marketing Name:          AMD Instinct MI300X",
            "      Name:                    amdgcn-amd-amdhsa--gfx942",
            "Agent 3",
            "  Name:                    gfx942",
            "  Name:                    gfx1100",
        ]
    )
    assert parse_rocminfo(text) == ["gfx942", "gfx1100"]


@SETTINGS
@given(st.text(), st.text())
def test_any_nvidia_smi_output_parses(query: str, banner: str) -> None:
    info = parse_nvidia_smi(query, banner)
    assert all(g.arch is None or g.arch >= 0 for g in info.gpus)
    assert all(t.startswith("cuda:") for t in info.targets)


@SETTINGS
@given(
    st.lists(
        st.tuples(st.text(alphabet="0123456789 ,.[]/NA", max_size=6), st.text("GTXRA 0123,-", max_size=8)), max_size=4
    )
)
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


# Section headers (sh_name, type, flags, addr, offset, size, link, info, align, entsize) with any
# 64-bit values: offsets and sizes far beyond the file, as a truncated or damaged cubin has.
sections = st.lists(
    st.tuples(
        *[st.integers(0, 2**32 - 1)] * 2,
        *[st.integers(0, 2**64 - 1)] * 4,
        *[st.integers(0, 2**32 - 1)] * 2,
        *[st.integers(0, 2**64 - 1)] * 2,
    ),
    max_size=4,
)


@SETTINGS
@given(sections, st.integers(0, 2**64 - 1), st.integers(0, 5), st.binary(max_size=64))
def test_any_section_table_is_a_cubin_or_a_value_error(
    table: list[tuple[int, ...]], shoff_far: int, strndx: int, tail: bytes
) -> None:
    body = b"".join(struct.pack("<IIQQQQIIQQ", *row) for row in table)
    for shoff in (64, shoff_far):
        data = _elf_header(shoff, 64, len(table), strndx) + body + tail
        try:
            assert isinstance(cubin_resource_usage(data, "kernel"), dict)
        except ValueError:
            pass


def test_a_crafted_section_table_costs_no_more_than_the_file() -> None:
    """65,535 headers that all name one .nv.info section covering the whole file, and a symbol table
    of the whole file: refused (or read) after a bounded amount of work, not once per header."""
    size = 1 << 20
    names = b"\0.nv.info\0"
    names_at = 64
    tables_at = names_at + len(names)
    info = struct.pack("<IIQQQQIIQQ", 1, 0, 0, 0, 0, size, 0, 0, 0, 0)  # .nv.info: the whole file
    strtab = struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, names_at, len(names), 0, 0, 0, 0)
    symtab = struct.pack("<IIQQQQIIQQ", 0, 2, 0, 0, 0, size, 1, 0, 0, 24)  # symbols: the whole file
    headers = strtab + symtab + info * 65533
    data = _elf_header(tables_at, 64, 65535, 0) + names + headers
    data += b"\0" * (size - len(data))
    with pytest.raises(ValueError, match="larger than the file"):  # after one file's worth of .nv.info
        cubin_resource_usage(data, "kernel")
    with pytest.raises(ValueError, match="section headers of 0 bytes"):
        cubin_resource_usage(_elf_header(64, 0, 65535, 0) + bytes(size), "kernel")


# -- cache folders ---------------------------------------------------------------------------------------

KEY = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST"
names = st.sampled_from(
    [
        "k.json",
        "k.cubin",
        "k.ptx",
        "k.ttir",
        "__grp__k.json",
        "k.autotune.json",
        "notes.txt",
        "data.json",
        "cuda_utils.cpython-311-x86_64-linux-gnu.so",
        "k.hsaco",
        "k.amdgcn",
        ".hidden",
        "tmp.pid_1_ab-cd/k.ptx",
        "sub/k.ptx",
        "k",
    ]
)
contents = st.binary(max_size=80) | st.sampled_from(
    [
        b'{"name": "k", "target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "triton_version": "3.5.0"}',
        b'{"name": "../../etc/k", "target": ["cuda", 90]}',
        b'{"target": 1}',
        b"[1, 2]",
        b'{"name": "k\\u0000"}',
        b"\x7fELF\x02" + b"\xff" * 70,
    ]
)


@SETTINGS
@given(st.dictionaries(names, contents, max_size=5), st.booleans())
def test_any_cache_folder_is_read_and_only_triton_ones_are_removable(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, bytes], fifo: bool
) -> None:
    from bootstrap.kernels.cache import remove_entries, scan
    from bootstrap.kernels.cache.contents import content_problem
    from bootstrap.kernels.cache.plan import plan_clear
    from tests.support.snapshot import diff, snapshot

    root = tmp_path_factory.mktemp("cache")
    folder = root / KEY
    folder.mkdir()
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    if fifo:
        os.mkfifo(folder / "k.ttgir")
    (entry,) = scan(root)  # a FIFO among the files never makes this hang
    assert entry.kind != "foreign" or entry.foreign_reason
    if not entry.removable:
        before = snapshot(root)
        assert remove_entries(root, plan_clear([entry])) == []
        assert diff(before, snapshot(root)) == []
        return
    # what may go: Triton's files only, a file only Triton writes among them, no FIFO
    assert content_problem(folder) is None and not fifo
    assert not set(files) & {"notes.txt", ".hidden", "sub/k.ptx", "k"}
    assert remove_entries(root, plan_clear([entry])) and not folder.exists()


def test_trash_is_emptied_only_when_it_is_ours(tmp_path: Path) -> None:
    from bootstrap.kernels.cache import remove_entries

    ours = tmp_path / f".tritondev-trash-{KEY}-123"
    ours.mkdir()
    (ours / "k.ptx").write_text("x")
    lookalike = tmp_path / ".tritondev-trash-mine"
    lookalike.mkdir()
    (lookalike / "notes.txt").write_text("keep")
    not_triton = tmp_path / f".tritondev-trash-{KEY}-124"
    not_triton.mkdir()
    (not_triton / "notes.txt").write_text("keep")
    remove_entries(tmp_path, [])
    assert not ours.exists() and lookalike.exists() and not_triton.exists()
