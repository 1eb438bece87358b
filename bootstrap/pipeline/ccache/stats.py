"""ccache's hit rate over one build: its counters read before and after, the difference shown.

Reading (not zeroing) the counters leaves the user's own statistics alone. `ccache --print-stats`
(ccache >= 4.0) prints machine-readable `name<TAB>value` lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.pipeline.host.toolchain import Tool

# A remote hit is also counted as a direct or preprocessed hit, so these two cover every hit.
HIT_KEYS = ("direct_cache_hit", "preprocessed_cache_hit")
MISS_KEYS = ("cache_miss",)
# ccache >= 4.7 with remote storage: where each hit came from, and lookups the remote failed.
REMOTE_USED_KEYS = ("remote_storage_hit", "remote_storage_miss", "remote_storage_error", "remote_storage_timeout")
REMOTE_ERROR_KEYS = ("remote_storage_error", "remote_storage_timeout")


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
    local_hits: int = 0
    remote_hits: int = 0
    remote_errors: int = 0  # errors and timeouts of the remote: ccache went on without it
    remote_used: bool = False

    @property
    def calls(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float | None:
        return self.hits / self.calls if self.calls else None

    @property
    def remote_rate(self) -> float:
        """The share of compilations the remote storage answered (0.0 with none)."""
        return self.remote_hits / self.calls if self.calls else 0.0

    def figures(self) -> tuple[int, int, int, int]:
        """(local hits, remote hits, misses, remote errors and timeouts)."""
        return self.local_hits, self.remote_hits, self.misses, self.remote_errors

    def describe(self) -> str:
        if not self.calls:
            return "ccache: no compilations"
        rate = self.hit_rate or 0.0
        text = f"ccache: {self.hits}/{self.calls} compilations from cache ({rate:.0%} hit rate)"
        if self.remote_used:
            text += f"; {self.local_hits} local, {self.remote_hits} remote hits"
            if self.remote_errors:
                text += f", {self.remote_errors} remote errors/timeouts"
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "hit_rate": self.hit_rate,
            "local_hits": self.local_hits,
            "remote_hits": self.remote_hits,
            "remote_errors": self.remote_errors,
        }


def delta(before: Mapping[str, int], after: Mapping[str, int]) -> CcacheDelta:
    def change(keys: tuple[str, ...]) -> int:
        return max(0, sum(after.get(k, 0) - before.get(k, 0) for k in keys))

    hits, remote_hits = change(HIT_KEYS), change(("remote_storage_hit",))
    return CcacheDelta(
        hits,
        change(MISS_KEYS),
        # ccache < 4.7 has no local_storage_hit: every hit that was not remote was local.
        local_hits=change(("local_storage_hit",)) if "local_storage_hit" in after else max(0, hits - remote_hits),
        remote_hits=remote_hits,
        remote_errors=change(REMOTE_ERROR_KEYS),
        remote_used=change(REMOTE_USED_KEYS) > 0,
    )


def read_counters(runner: Runner, ccache: str, env: Mapping[str, str] | None = None) -> dict[str, int] | None:
    """The counters now, or None when ccache cannot say (too old, broken): never fails a build."""
    try:
        result = runner.capture(
            [ccache, "--print-stats"], step="probe-ccache", check=False, timeout=60, env=dict(env or {})
        )
    except (ToolMissing, CommandFailed):
        return None
    if not result.ok:
        return None
    return parse_print_stats(result.stdout)


def ccache_counted(runner: Runner, ccache: Tool | None, action: Callable[[], object]) -> CcacheDelta | None:
    """Run `action` and return what ccache did meanwhile (counters read before and after, never zeroed);
    None without ccache or under --dry-run."""
    if ccache is None or runner.dry_run:
        action()
        return None
    before = read_counters(runner, ccache.path)
    action()
    after = read_counters(runner, ccache.path)
    return delta(before, after) if before is not None and after is not None else None


def remote_failed_notice(label: str, failures: int) -> str:
    return (
        f"ccache remote storage failed {failures} time(s) during the {label} (errors or timeouts): the build "
        "went on with the local cache; check the server with `tritondev doctor --check toolchain.ccache-remote`"
    )
