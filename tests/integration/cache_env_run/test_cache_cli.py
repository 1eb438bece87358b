"""`tritondev cache` end to end: the real CLI in a subprocess over entries real compiles wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.integration.cache_env_run.conftest import age_entry
from tests.integration.doctor.conftest import odd_interpreter
from tests.support.cli import tritondev_argv


def snapshot(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in sorted(folder.rglob("*"))}


def ls_json(cli: Cli, cache: Path, *extra: str) -> dict[str, Any]:
    result = cli("cache", "ls", "--dir", str(cache), "--json", *extra)
    assert result.returncode == 0, result.stderr
    listing: dict[str, Any] = json.loads(result.stdout)
    return listing


def test_ls_lists_real_entries(cli: Cli, real_cache: Path, triton_python: Path) -> None:
    data = ls_json(cli, real_cache, "--python", str(triton_python))
    assert data["dir"] == str(real_cache) and data["dir_source"] == "--dir"
    assert data["installed_triton"] == "3.9.0"
    kernels = {e["target"]: e for e in data["entries"] if e["kind"] == "kernel"}
    assert set(kernels) == {"cuda:90", "hip:gfx942", "cuda:80"}
    assert kernels["cuda:80"]["name"] == "scale_kernel"
    assert all(e["triton_version"] == "3.9.0" and not e["stale"] for e in kernels.values())
    assert all(isinstance(e["n_regs"], int) and e["n_regs"] > 0 for e in kernels.values())
    assert data["total_size"] == sum(e["size"] for e in data["entries"])
    assert [e["kind"] for e in data["entries"]].count("module") == 1


def test_ls_finds_the_cache_through_triton_cache_dir(cli: Cli, real_cache: Path) -> None:
    result = cli("cache", "ls", "--json", env={"TRITON_CACHE_DIR": str(real_cache)})
    data = json.loads(result.stdout)
    assert data["dir"] == str(real_cache) and data["dir_source"] == "$TRITON_CACHE_DIR"
    assert data["count"] == 4
    human = cli("cache", "ls", env={"TRITON_CACHE_DIR": str(real_cache)})
    assert human.returncode == 0
    assert "scale_kernel" in human.stdout and "hip:gfx942" in human.stdout and "cuda_utils" in human.stdout


def test_ls_flags_entries_of_another_triton(cli: Cli, real_cache: Path, triton_python: Path) -> None:
    # Installing a second Triton release just to compile one kernel would cost minutes and a
    # download; an entry from another release differs only in the version its metadata records.
    data = ls_json(cli, real_cache)
    entry = next(e for e in data["entries"] if e["target"] == "cuda:80")
    meta_path = Path(entry["path"]) / "scale_kernel.json"
    meta = json.loads(meta_path.read_text())
    meta["triton_version"] = "3.8.0"
    meta_path.write_text(json.dumps(meta))
    data = ls_json(cli, real_cache, "--python", str(triton_python))
    stale = [e for e in data["entries"] if e["stale"]]
    assert [e["key"] for e in stale] == [entry["key"]]
    assert stale[0]["stale_reasons"] == ["built by Triton 3.8.0, installed is 3.9.0"]
    human = cli("cache", "ls", "--dir", str(real_cache), "--python", str(triton_python))
    assert "stale" in human.stdout and "3.8.0" in human.stdout
    # prune --stale removes exactly that one.
    pruned = cli("cache", "prune", "--stale", "--dir", str(real_cache), "--python", str(triton_python), "--json")
    assert pruned.returncode == 0, pruned.stderr
    assert [r["key"] for r in json.loads(pruned.stdout)["removed"]] == [entry["key"]]
    assert not Path(entry["path"]).exists()


def test_ls_without_a_cache(cli: Cli, tmp_path: Path) -> None:
    data = ls_json(cli, tmp_path / "none")
    assert data["exists"] is False and data["entries"] == []
    result = cli("cache", "ls")  # ~/.triton/cache of the test's empty HOME
    assert result.returncode == 0 and "No kernel cache" in result.stdout


def test_show_lists_and_prints_artifacts(cli: Cli, real_cache: Path, workspace: Path) -> None:
    result = cli("cache", "show", "scale_kernel", "--dir", str(real_cache), "--json")
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout)
    assert entry["metadata"]["name"] == "scale_kernel"
    stages = [a["stage"] for a in entry["artifacts"]]
    assert stages[:6] == ["source", "ttir", "ttgir", "llir", "ptx", "cubin"]
    human = cli("cache", "show", entry["key"][:8], "--dir", str(real_cache))
    assert "scale_kernel.ptx" in human.stdout and "registers" in human.stdout
    ptx = cli("cache", "show", entry["key"][:8], "ptx", "--dir", str(real_cache))
    assert ptx.returncode == 0
    assert ptx.stdout == (Path(entry["path"]) / "scale_kernel.ptx").read_text()
    # Binary artifacts go to a pipe or file unchanged.
    raw = subprocess.run(
        tritondev_argv("cache", "show", entry["key"], "cubin", "--dir", str(real_cache)),
        capture_output=True,
        env={
            **os.environ,
            "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
            "TRITONDEV_WORKSPACE": str(workspace),
        },
    )
    assert raw.returncode == 0
    assert raw.stdout == (Path(entry["path"]) / "scale_kernel.cubin").read_bytes()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["show", "add_kernel"], "matches 2"),
        (["show", "nothing-here"], "no cache entry"),
        (["show", "scale_kernel", "hsaco"], "no artifact"),
        (["prune"], "needs a rule"),
        (["prune", "--older-than", "7"], "cannot read the age"),
        (["prune", "--max-size", "5Q"], "cannot read the size"),
    ],
)
def test_bad_input_exit_2_and_nothing_changes(cli: Cli, real_cache: Path, args: list[str], needle: str) -> None:
    before = snapshot(real_cache)
    result = cli("cache", *args, "--dir", str(real_cache))
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr and "fix:" in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(real_cache) == before


def test_prune_older_than_dry_run_then_real(cli: Cli, real_cache: Path) -> None:
    data = ls_json(cli, real_cache)
    old = next(e for e in data["entries"] if e["target"] == "hip:gfx942")
    age_entry(Path(old["path"]), 8 * 86400)
    before = snapshot(real_cache)
    dry = cli("cache", "prune", "--older-than", "7d", "--dir", str(real_cache), "--dry-run", "--json")
    assert dry.returncode == 0
    plan = json.loads(dry.stdout)
    assert plan["dry_run"] is True and [r["key"] for r in plan["removed"]] == [old["key"]]
    assert snapshot(real_cache) == before
    real = cli("cache", "prune", "--older-than", "7d", "--dir", str(real_cache))
    assert real.returncode == 0 and "Removed 1 entries" in real.stderr
    assert not Path(old["path"]).exists()
    assert ls_json(cli, real_cache)["count"] == 3


def test_prune_max_size_keeps_the_newest(cli: Cli, real_cache: Path) -> None:
    entries = ls_json(cli, real_cache)["entries"]
    for offset, entry in enumerate(entries):  # distinct ages, newest first as listed
        age_entry(Path(entry["path"]), 3600 * (offset + 1))
    newest = entries[0]
    result = cli("cache", "prune", "--max-size", str(newest["size"]), "--dir", str(real_cache), "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["kept"] == 1
    assert [e["key"] for e in ls_json(cli, real_cache)["entries"]] == [newest["key"]]


def test_clear_one_kernel_then_all(cli: Cli, real_cache: Path) -> None:
    (real_cache / "notes").mkdir()
    (real_cache / "notes" / "mine.txt").write_text("keep me")
    dry = cli("cache", "clear", "add_kernel", "--dir", str(real_cache), "--dry-run")
    assert dry.returncode == 0 and "would remove" in dry.stderr and dry.stdout == ""
    assert ls_json(cli, real_cache)["count"] == 5
    one = cli("cache", "clear", "add_kernel", "--dir", str(real_cache), "--json")
    assert {r["name"] for r in json.loads(one.stdout)["removed"]} == {"add_kernel"}
    names = sorted(e["name"] or e["kind"] for e in ls_json(cli, real_cache)["entries"])
    assert names == ["cuda_utils", "foreign", "scale_kernel"]
    everything = cli("cache", "clear", "--dir", str(real_cache))
    assert everything.returncode == 0
    assert sorted(p.name for p in real_cache.iterdir()) == ["notes"]
    assert (real_cache / "notes" / "mine.txt").read_text() == "keep me"


def test_json_error_is_one_document(cli: Cli, real_cache: Path) -> None:
    result = cli("cache", "prune", "--max-size", "lots", "--dir", str(real_cache), "--json")
    assert result.returncode == 2
    error = json.loads(result.stdout)
    assert error["exit_code"] == 2 and "size" in error["message"] and error["fix"]


def test_ls_with_a_target_that_answers_its_version_wrongly(cli: Cli, real_cache: Path, tmp_path: Path) -> None:
    """The listing stands, the versions are not compared, and a note says why (never exit 70)."""
    python = odd_interpreter(tmp_path / "odd", Path(sys.executable), {"tritondev_triton_version.py": '{"version": 3}'})
    data = ls_json(cli, real_cache, "--python", str(python))
    assert data["installed_triton"] is None and data["count"] == 4
    assert any("could not read Triton's version" in n and "'version' is int, not str" in n for n in data["notes"])
