"""ccache's hit rate over one build: its counters read before and after, the difference shown.

Reading (not zeroing) the counters leaves the user's own statistics alone. `ccache --print-stats`
(ccache >= 4.0) prints machine-readable `name<TAB>value` lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bootstrap.errors import CommandFailed, ToolMissing
from bootstrap.runner import Runner

# A remote hit is also counted as a direct or preprocessed hit, so these two cover every hit.
HIT_KEYS = ("direct_cache_hit", "preprocessed_cache_hit")
MISS_KEYS = ("cache_miss",)


def parse_print_stats(text: str) -> dict[str, int]:
    counters: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[1].strip().lstrip("-").isdigit():
            counters[parts[0].strip()] = int(parts[1].strip())
    return counters


@dataclass(frozen=True)
class CcacheDelta:
    hits: int
    misses: int

    @property
    def calls(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float | None:
        return self.hits / self.calls if self.calls else None

    def describe(self) -> str:
        if not self.calls:
            return "ccache: no compilations"
        rate = self.hit_rate or 0.0
        return f"ccache: {self.hits}/{self.calls} compilations from cache ({rate:.0%} hit rate)"

    def to_json(self) -> dict[str, object]:
        return {"hits": self.hits, "misses": self.misses, "hit_rate": self.hit_rate}


def delta(before: Mapping[str, int], after: Mapping[str, int]) -> CcacheDelta:
    hits = sum(after.get(k, 0) - before.get(k, 0) for k in HIT_KEYS)
    misses = sum(after.get(k, 0) - before.get(k, 0) for k in MISS_KEYS)
    return CcacheDelta(max(0, hits), max(0, misses))


def read_counters(runner: Runner, ccache: str, env: Mapping[str, str] | None = None) -> dict[str, int] | None:
    """The counters now, or None when ccache cannot say (too old, broken): never fails a build."""
    try:
        result = runner.run(
            [ccache, "--print-stats"], step="probe-ccache", probe=True, check=False, timeout=60, env=dict(env or {})
        )
    except (ToolMissing, CommandFailed):
        return None
    if not result.ok:
        return None
    return parse_print_stats(result.stdout)
