"""`tritondev cache`'s human output (bootstrap.commands.cache.render) over a cache read from disk: the
columns, the totals, the stale entries with their fix, and how to look inside a binary."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bootstrap.commands.cache.render import print_entry, print_listing
from bootstrap.kernels.cache.actions import binary_hint
from bootstrap.kernels.cache.report import CacheReport
from bootstrap.kernels.cache.scan import scan


def _cache(root: Path) -> Path:
    entry = root / "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST"
    entry.mkdir(parents=True)
    (entry / "add_kernel.json").write_text(
        json.dumps(
            {
                "name": "add_kernel",
                "triton_version": "3.4.0",
                "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
                "num_warps": 4,
                "n_regs": 24,
                "n_spills": 0,
            }
        )
    )
    (entry / "add_kernel.ttir").write_text("module {}\n")
    (entry / "add_kernel.cubin").write_bytes(b"\x7fELF" + b"\0" * 60)
    for path in (*entry.iterdir(), entry):
        os.utime(path, (1_500_000_000, 1_500_000_000))
    return root


def test_the_listing_shows_each_entry_and_the_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _cache(tmp_path / "cache")
    entries = scan(root)
    entries[0].stale.append("written by Triton 3.4.0, installed 3.9.0")
    print_listing(CacheReport(root, "TRITON_CACHE_DIR", entries, "3.9.0", ["cuda:90"]))
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"Triton kernel cache {root} (TRITON_CACHE_DIR)"
    assert lines[1].split()[:4] == ["ENTRY", "KIND", "NAME", "TARGET"]
    assert lines[2].split()[:5] == ["ABCDEFGHIJKL", "kernel", "add_kernel", "cuda:90", "3.4.0"]
    assert "1 entries" in out and "1 stale; installed Triton 3.9.0; GPUs cuda:90" in out
    assert "stale ABCDEFGHIJKL add_kernel: written by Triton 3.4.0" in out
    assert "fix: tritondev cache prune --stale" in out + err


def test_no_cache_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    print_listing(CacheReport(tmp_path / "none", "default", [], None, []))
    assert capsys.readouterr().out.strip() == f"No kernel cache at {tmp_path / 'none'} (default)."


def test_one_entry_with_its_artifacts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (entry,) = scan(_cache(tmp_path / "cache"))
    print_entry(entry)
    out = capsys.readouterr().out
    assert "add_kernel.cubin" in out and "registers" in out and "24" in out and "num_warps" in out


def test_how_to_look_inside_a_binary(tmp_path: Path) -> None:
    cubin = tmp_path / "k.cubin"
    assert binary_hint("k.cubin", cubin, "/opt/nvdisasm") == f"disassemble it: /opt/nvdisasm -c {cubin}"
    assert "none found here" in binary_hint("k.cubin", cubin)
    assert binary_hint("k.hsaco", tmp_path / "k.hsaco").startswith("disassemble it: llvm-objdump -d")
    assert binary_hint("k.so", tmp_path / "k.so") == f"inspect it: nm -D {tmp_path / 'k.so'}"
