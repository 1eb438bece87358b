"""The cache library against entries that real Triton compiles wrote."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.core.process.runner import Runner
from bootstrap.kernels import cache as kc
from tests.integration.cache_env_run.conftest import age_entry


def by_target(entries: list[kc.Entry]) -> dict[str | None, kc.Entry]:
    return {e.target: e for e in entries if e.kind == kc.KERNEL}


def test_scan_reads_real_entries(real_cache: Path, triton_python: Path) -> None:
    entries = kc.scan(real_cache)
    kinds = sorted(e.kind for e in entries)
    assert kinds == ["kernel", "kernel", "kernel", "module"]
    kernels = by_target(entries)
    assert set(kernels) == {"cuda:90", "hip:gfx942", "cuda:80"}
    installed = kc.installed_triton_version(triton_python, Runner())
    assert installed == "3.9.0"  # the version pinned in tests/support/venvs.py
    for entry in kernels.values():
        metadata = json.loads((entry.path / f"{entry.name}.json").read_text())
        assert entry.name == metadata["name"]
        assert entry.triton_version == metadata["triton_version"] == installed
        assert entry.triton_hash == metadata["hash"]
        assert entry.size == sum(p.stat().st_size for p in entry.path.rglob("*") if p.is_file())
        assert "group" in [a.stage for a in entry.artifacts]
    assert {a.stage for a in kernels["cuda:90"].artifacts} >= {"ttir", "ttgir", "llir", "ptx", "cubin", "metadata"}
    assert {a.stage for a in kernels["hip:gfx942"].artifacts} >= {"amdgcn", "hsaco"}
    module = next(e for e in entries if e.kind == kc.MODULE)
    assert module.name == "cuda_utils" and module.target is None and module.triton_version is None


@pytest.mark.parametrize("target", ["cuda:90", "cuda:80"])
def test_cuda_registers_match_ptxas(real_cache: Path, triton_python: Path, tmp_path: Path, target: str) -> None:
    """Registers read from the cubin are what the wheel's own ptxas reports for the same PTX."""
    entry = by_target(kc.scan(real_cache))[target]
    capability = int(target.split(":")[1])
    # Triton 3.9 assembles sm_90+ with ptxas-blackwell (CUDA 12.9 ptxas knows PTX 9.4 no more than 8.8).
    tool = "ptxas-blackwell" if capability >= 90 else "ptxas"
    bindir = next((triton_python.parent.parent / "lib").glob("python3*/site-packages/triton/backends/nvidia/bin"))
    gpu_name = f"sm_{capability}a" if capability >= 90 else f"sm_{capability}"
    ptx = entry.path / f"{entry.name}.ptx"
    out = subprocess.run(
        [str(bindir / tool), "-v", f"--gpu-name={gpu_name}", str(ptx), "-o", str(tmp_path / "k.cubin")],
        capture_output=True,
        text=True,
        check=True,
    )
    used = re.search(r"Used (\d+) registers", out.stdout + out.stderr)
    assert used is not None
    assert entry.n_regs == int(used.group(1))
    frame = re.search(r"(\d+) bytes stack frame", out.stdout + out.stderr)
    assert frame is not None and entry.stack_bytes == int(frame.group(1))


def test_amd_registers_from_code_object_metadata(real_cache: Path) -> None:
    entry = by_target(kc.scan(real_cache))["hip:gfx942"]
    text = (entry.path / f"{entry.name}.amdgcn").read_text()
    # The same number the assembler's kernel-info comment states.
    stated = re.search(r"; NumVgprs: (\d+)", text)
    assert stated is not None, "no NumVgprs comment in the assembly"
    assert entry.n_regs == int(stated.group(1))
    assert entry.n_spills == 0


def test_stale_by_version_and_target(real_cache: Path) -> None:
    entries = kc.scan(real_cache)
    assert not any(e.stale for e in kc.with_staleness(entries, "3.9.0", []))
    judged = kc.with_staleness(entries, "3.10.0", ["cuda:90"])
    assert not any(e.stale for e in entries)  # the scan's own entries are left as they are
    kernels = by_target(judged)
    assert kernels["cuda:90"].stale == ["built by Triton 3.9.0, installed is 3.10.0"]
    assert any("built for hip:gfx942" in r for r in kernels["hip:gfx942"].stale)
    assert not next(e for e in judged if e.kind == kc.MODULE).stale


def test_prune_by_age_and_size(real_cache: Path) -> None:
    entries = kc.scan(real_cache)
    kernels = by_target(entries)
    age_entry(kernels["cuda:80"].path, 10 * 86400)
    age_entry(kernels["hip:gfx942"].path, 3 * 86400)
    entries = kc.scan(real_cache)
    now = time.time()
    old = kc.plan_prune(entries, now, older_than=kc.parse_duration("7d"))
    assert [r.entry.target for r in old] == ["cuda:80"]
    # Size: oldest first until what is left fits.
    newest = entries[0]
    fit = kc.plan_prune(entries, now, max_size=newest.size)
    assert newest.key not in {r.entry.key for r in fit}
    assert len(fit) == len(entries) - 1
    assert [r.entry.target for r in fit][:2] == ["cuda:80", "hip:gfx942"]
    assert kc.plan_prune(entries, now, max_size=sum(e.size for e in entries)) == []


def test_remove_entries_deletes_only_planned_and_never_foreign(real_cache: Path) -> None:
    (real_cache / "my-notes").mkdir()
    (real_cache / "my-notes" / "keep.txt").write_text("user data")
    (real_cache / "README").write_text("a file, not an entry")
    entries = kc.scan(real_cache)
    foreign = [e for e in entries if e.kind == kc.FOREIGN]
    assert [e.key for e in foreign] == ["my-notes"]
    plan = kc.plan_clear(entries)
    assert "my-notes" not in {r.entry.key for r in plan}
    done = kc.remove_entries(real_cache, plan)
    assert len(done) == 4
    assert sorted(p.name for p in real_cache.iterdir()) == ["README", "my-notes"]
    assert (real_cache / "my-notes" / "keep.txt").read_text() == "user data"


def test_clear_by_kernel_name_and_wildcard(real_cache: Path) -> None:
    entries = kc.scan(real_cache)
    assert {r.entry.target for r in kc.plan_clear(entries, "add_kernel")} == {"cuda:90", "hip:gfx942"}
    assert {r.entry.name for r in kc.plan_clear(entries, "*_kernel")} == {"add_kernel", "scale_kernel"}
    assert kc.plan_clear(entries, "nope") == []


def test_find_entry_and_artifact(real_cache: Path) -> None:
    entries = kc.scan(real_cache)
    scale = kc.find_entry(entries, "scale_kernel")
    assert kc.find_entry(entries, scale.key[:6]) is scale
    assert kc.find_entry(entries, scale.key) is scale
    with pytest.raises(UsageError, match="matches 2"):
        kc.find_entry(entries, "add_kernel")
    with pytest.raises(UsageError, match="no cache entry"):
        kc.find_entry(entries, "missing")
    assert kc.find_artifact(scale, "ptx").name == "scale_kernel.ptx"
    assert kc.find_artifact(scale, "scale_kernel.cubin").binary
    with pytest.raises(UsageError, match="no artifact"):
        kc.find_artifact(scale, "hsaco")


def test_entry_without_metadata_is_incomplete(real_cache: Path) -> None:
    """An interrupted compile: IR stages written, metadata not yet."""
    entry = by_target(kc.scan(real_cache))["cuda:90"]
    (entry.path / f"{entry.name}.json").unlink()
    (entry.path / f"__grp__{entry.name}.json").unlink()
    read = kc.read_entry(entry.path)
    assert read.kind == kc.INCOMPLETE and read.name == entry.name and read.target is None
