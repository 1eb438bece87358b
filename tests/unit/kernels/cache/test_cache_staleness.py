"""The one meaning of a stale kernel-cache entry (kernels/cache/plan.py stale_reasons), for every kind of
entry, over real folders read by the scan: what `cache ls`, `cache prune --stale`, doctor's cache check
and `doctor --fix` all judge by."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bootstrap.kernels import cache as kc

INSTALLED = 2_000_000.0  # when the target's Triton last changed its cache key
BEFORE, AFTER = INSTALLED - 3600, INSTALLED + 3600


def _entry(root: Path, key: str, files: dict[str, str], when: float) -> Path:
    folder = root / key
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, (when, when))
    return folder


def _kernel(version: str, arch: int) -> dict[str, str]:
    meta = {"name": "add_kernel", "triton_version": version, "target": {"backend": "cuda", "arch": arch}}
    return {"add_kernel.json": json.dumps(meta), "add_kernel.ptx": "//", "add_kernel.cubin": "x"}


def _cache(root: Path) -> dict[str, kc.Entry]:
    _entry(root, "A" * 52, _kernel("3.9.0", 90), AFTER)  # fresh
    _entry(root, "B" * 52, _kernel("3.8.0", 90), AFTER)  # another Triton
    _entry(root, "C" * 52, _kernel("3.9.0", 80), AFTER)  # another GPU
    _entry(root, "D" * 52, _kernel("3.9.0", 90), BEFORE)  # before Triton changed
    _entry(root, "E" * 52, {"tmp.pid_12_ab/add_kernel.ptx": "//"}, AFTER)  # a write that never finished
    _entry(root, "F" * 52, {"cuda_utils.so": "\0"}, BEFORE)  # a launcher: keyed by its own source
    _entry(root, "G" * 52, {"add_kernel.ttir": "module {}"}, BEFORE)  # stages of an unfinished compile
    _entry(root, "H" * 52, {"notes.txt": "mine"}, BEFORE)  # not Triton's
    _entry(root, "J" * 52, {"add_kernel.autotune.json": "{}"}, BEFORE)  # autotuning results
    return {e.key[0]: e for e in kc.with_staleness(kc.scan(root), "3.9.0", ["cuda:90"], INSTALLED)}


def test_each_rule_of_staleness(tmp_path: Path) -> None:
    judged = _cache(tmp_path)
    reasons = {key: e.stale for key, e in judged.items()}
    assert reasons["A"] == [] and reasons["F"] == [] and reasons["H"] == []
    assert reasons["B"] == ["built by Triton 3.8.0, installed is 3.9.0"]
    assert reasons["C"] == ["built for cuda:80, this machine has cuda:90"]
    assert len(reasons["D"]) == 1 and reasons["D"][0].startswith("written before the installed Triton changed")
    assert reasons["E"] == ["a write that never finished (only tmp.pid_* folders in it)"]
    assert reasons["G"] == reasons["J"] == reasons["D"]
    assert judged["E"].interrupted and not judged["G"].interrupted


def test_what_is_unknown_is_not_called_stale(tmp_path: Path) -> None:
    """Without the installed version, its install time or a GPU, only unfinished writes are stale."""
    _cache(tmp_path)
    judged = {e.key[0]: e for e in kc.with_staleness(kc.scan(tmp_path), None, [], None)}
    assert [k for k, e in sorted(judged.items()) if e.stale] == ["E"]


def test_prune_stale_removes_exactly_the_stale_and_never_a_foreign_folder(tmp_path: Path) -> None:
    judged = _cache(tmp_path)
    planned = kc.plan_prune(list(judged.values()), AFTER, stale=True)
    assert sorted(r.entry.key[0] for r in planned) == ["B", "C", "D", "E", "G", "J"]
    assert all(r.reason.startswith("stale: ") for r in planned)
