"""The kernel cache as the cache commands show it: its folder, its entries, and which are stale
against the target environment's Triton and this machine's GPUs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import inside
from bootstrap.core import inside_answers as answers
from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.runner import Runner
from bootstrap.env.envfile import read_env_file
from bootstrap.kernels.cache.locate import resolve_cache_dir
from bootstrap.kernels.cache.plan import with_staleness
from bootstrap.kernels.cache.scan import KERNEL, Entry, scan
from bootstrap.kernels.gpus import local_gpu_targets

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

VERSION_TIMEOUT = 60.0


def installed_triton_version(python: Path, runner: Runner) -> str | None:
    """`triton.__version__` in the environment of `python`, read without importing triton; None when
    triton is not installed there. BadAnswer when the interpreter does not answer as agreed."""
    _, data = inside.run_json(
        runner, python, "tritondev_triton_version.py", step="probe-triton-version", timeout=VERSION_TIMEOUT,
        isolated=True,
    )
    return answers.triton_version(data)


@dataclass
class CacheReport:
    root: Path
    source: str
    entries: list[Entry]
    installed_version: str | None
    local_targets: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def total_size(self) -> int:
        return sum(e.size for e in self.entries)

    def to_json(self, now: float) -> dict[str, object]:
        return {
            "dir": str(self.root),
            "dir_source": self.source,
            "exists": self.root.is_dir(),
            "installed_triton": self.installed_version,
            "local_targets": self.local_targets,
            "count": len(self.entries),
            "total_size": self.total_size,
            "stale_count": sum(1 for e in self.entries if e.stale),
            "notes": self.notes,
            "entries": [e.to_json(now) for e in self.entries],
        }


def inspect_cache(ctx: AppContext, dir_option: Path | None, *, check_stale: bool = True) -> CacheReport:
    """Scan the cache and flag stale entries against the target environment's Triton and local GPUs."""

    # The workspace env file is read only when it decides (a malformed one is then exit 2, named).
    decides = dir_option is None and not any(os.environ.get(n, "").strip() for n in ("TRITON_CACHE_DIR", "TRITON_HOME"))
    env_file = read_env_file(ctx.workspace.env_file) if decides else {}
    root, source = resolve_cache_dir(dir_option, os.environ, env_file, Path.home())
    entries = scan(root)
    report = CacheReport(root, source, entries, None, [])
    if not check_stale or not any(e.kind == KERNEL for e in entries):
        return report
    report.installed_version = _installed_version(ctx, report.notes)
    report.local_targets = local_gpu_targets(ctx.runner)
    if not report.local_targets:
        report.notes.append("no GPU found: targets not compared")
    report.entries = with_staleness(entries, report.installed_version, report.local_targets)
    return report


def _installed_version(ctx: AppContext, notes: list[str]) -> str | None:
    """The target environment's Triton version; None, with a note saying why, when it is not known."""
    target = ctx.target_python_if_present()  # a target the user named but that is broken: exit 2
    if target is None:
        notes.append("no target environment (no --python, virtualenv or workspace venv): Triton versions not compared")
        return None
    try:
        version = installed_triton_version(target.executable, ctx.runner)
    except (inside.BadAnswer, CommandFailed, ToolMissing) as exc:
        notes.append(f"could not read Triton's version in {target.executable} ({exc}): Triton versions not compared")
        return None
    if version is None:
        notes.append(f"triton is not installed in {target.executable}: Triton versions not compared")
    return version
