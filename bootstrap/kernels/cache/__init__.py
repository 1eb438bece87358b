"""The Triton kernel cache: which folder it is (locate), its entries (scan, resources), what to prune
or clear (plan: pure), the deletion step (remove), and the whole picture for the commands (report).

Scanning and planning run no process; deleting is a separate, small step. Folders whose names are
not Triton cache keys are never touched, whatever the options say.
"""

from bootstrap.kernels.cache.locate import cache_dir, resolve_cache_dir
from bootstrap.kernels.cache.plan import Removal, now, plan_clear, plan_prune, stale_reasons, with_staleness
from bootstrap.kernels.cache.remove import remove_entries
from bootstrap.kernels.cache.report import CacheReport, inspect_cache, installed_triton_version, judge_cache
from bootstrap.kernels.cache.scan import (
    FOREIGN,
    INCOMPLETE,
    KERNEL,
    MODULE,
    Entry,
    find_artifact,
    find_entry,
    read_entry,
    scan,
)
from bootstrap.kernels.cache.units import human_age, human_size, parse_duration, parse_size

__all__ = [
    "FOREIGN",
    "INCOMPLETE",
    "KERNEL",
    "MODULE",
    "CacheReport",
    "Entry",
    "Removal",
    "cache_dir",
    "find_artifact",
    "find_entry",
    "human_age",
    "human_size",
    "inspect_cache",
    "installed_triton_version",
    "judge_cache",
    "now",
    "parse_duration",
    "parse_size",
    "plan_clear",
    "plan_prune",
    "read_entry",
    "remove_entries",
    "resolve_cache_dir",
    "scan",
    "stale_reasons",
    "with_staleness",
]
