"""The kernel cache as the cache commands show it: its folder, its entries, and which are stale
against the target environment's Triton and this machine's GPUs."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.core.target import inside
from bootstrap.core.target import inside_answers as answers
from bootstrap.env.envfile import read_env_file
from bootstrap.kernels.cache.locate import resolve_cache_dir
from bootstrap.kernels.cache.plan import KEYED_BY_TRITON, with_staleness
from bootstrap.kernels.cache.scan import KERNEL, Entry, scan
from bootstrap.kernels.gpus import local_gpu_targets

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

VERSION_TIMEOUT = 60.0


def installed_triton(python: Path, runner: Runner) -> answers.InstalledTriton:
    """The Triton in the environment of `python` as its kernel cache sees it (its version, and when its
    cache key last changed), read without importing triton. BadAnswer when the interpreter does not
    answer as agreed."""
    _, data = inside.run_json(
        runner,
        python,
        "tritondev_triton_version.py",
        step="probe-triton-version",
        timeout=VERSION_TIMEOUT,
        isolated=True,
    )
    return answers.installed_triton(data)


def installed_triton_version(python: Path, runner: Runner) -> str | None:
    """`triton.__version__` in the environment of `python`; None when triton is not installed there."""
    return installed_triton(python, runner).version


@dataclass
class CacheReport:
    root: Path
    source: str
    entries: list[Entry]
    installed_version: str | None
    local_targets: list[str]
    notes: list[str] = field(default_factory=list)
    key_changed_at: float | None = None  # when the target's Triton last changed its cache key

    @property
    def total_size(self) -> int:
        return sum(e.size for e in self.entries)

    @property
    def stale(self) -> list[Entry]:
        return [e for e in self.entries if e.stale]

    def to_json(self, now: float) -> dict[str, object]:
        return {
            "dir": str(self.root),
            "dir_source": self.source,
            "exists": self.root.is_dir(),
            "installed_triton": self.installed_version,
            "local_targets": self.local_targets,
            "count": len(self.entries),
            "total_size": self.total_size,
            "stale_count": len(self.stale),
            "notes": self.notes,
            "entries": [e.to_json(now) for e in self.entries],
        }


def inspect_cache(ctx: AppContext, dir_option: Path | None, *, check_stale: bool = True) -> CacheReport:
    """The cache the cache commands work on (--dir, the environment, the workspace env file), judged
    against the target environment's Triton and this machine's GPUs."""

    # The workspace env file is read only when it decides (a malformed one is then exit 2, named).
    decides = dir_option is None and not any(os.environ.get(n, "").strip() for n in ("TRITON_CACHE_DIR", "TRITON_HOME"))
    env_file = read_env_file(ctx.workspace.env_file) if decides else {}
    root, source = resolve_cache_dir(dir_option, os.environ, env_file, Path.home())
    if not check_stale:
        return CacheReport(root, source, scan(root), None, [])

    def python() -> Path | None:
        target = ctx.target_python_if_present()  # a target the user named but that is broken: exit 2
        return target.executable if target else None

    return judge_cache(
        root, source, ctx.runner, python, "no target environment (no --python, virtualenv or workspace venv)"
    )


def judge_cache(
    root: Path,
    source: str,
    runner: Runner,
    python: Callable[[], Path | None],
    no_python: str,
    *,
    resources: bool = True,
) -> CacheReport:
    """The cache at `root`, each entry with its stale reasons (plan.stale_reasons) against the Triton of
    the interpreter `python()` gives (asked only when an entry needs it; None: not known, `no_python`
    says why) and this machine's GPUs: the one picture of the cache that `cache ls/show/prune` and
    doctor's cache checks and fix judge by. resources: each kernel's registers and spills too
    (scan.read_entry)."""
    entries = scan(root, resources=resources)
    report = CacheReport(root, source, entries, None, [])
    judged = [e for e in entries if e.removable and not e.interrupted and e.kind in KEYED_BY_TRITON]
    if not judged:  # nothing a target or a GPU could make stale (unfinished writes are stale anyway)
        report.entries = with_staleness(entries, None, [])
        return report
    installed = _installed(runner, python(), no_python, report.notes)
    report.installed_version, report.key_changed_at = installed.version, installed.key_changed_at
    if any(e.kind == KERNEL for e in judged):
        report.local_targets = local_gpu_targets(runner)
        if not report.local_targets:
            report.notes.append("no GPU found: targets not compared")
    report.entries = with_staleness(entries, installed.version, report.local_targets, installed.key_changed_at)
    return report


def _installed(runner: Runner, python: Path | None, no_python: str, notes: list[str]) -> answers.InstalledTriton:
    """The target environment's Triton; nothing known, with a note saying why, when it cannot be read."""
    unknown = answers.InstalledTriton(None, None)
    if python is None:
        notes.append(f"{no_python}: Triton versions not compared")
        return unknown
    try:
        installed = installed_triton(python, runner)
    except (inside.BadAnswer, CommandFailed, ToolMissing) as exc:
        notes.append(f"could not read Triton's version in {python} ({exc}): Triton versions not compared")
        return unknown
    if installed.version is None:
        notes.append(f"triton is not installed in {python}: Triton versions not compared")
    return installed
