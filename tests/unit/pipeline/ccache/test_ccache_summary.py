"""The build summary's ccache figures (bootstrap.pipeline.ccache.stats) with and without a remote, and bad
remote settings refused before anything changes."""

from __future__ import annotations

from bootstrap.pipeline.ccache.stats import delta, remote_failed_notice

# Counter names as ccache 4.7 prints them (`ccache --print-stats`).
BEFORE = {
    "direct_cache_hit": 10,
    "preprocessed_cache_hit": 2,
    "cache_miss": 5,
    "local_storage_hit": 12,
    "remote_storage_hit": 0,
    "remote_storage_miss": 0,
    "remote_storage_error": 0,
}


def test_remote_hits_are_split_out() -> None:
    after = {
        **BEFORE,
        "direct_cache_hit": 40,
        "local_storage_hit": 14,
        "remote_storage_hit": 28,
        "remote_storage_miss": 3,
        "cache_miss": 8,
    }
    d = delta(BEFORE, after)
    assert (d.hits, d.misses, d.local_hits, d.remote_hits, d.remote_errors) == (30, 3, 2, 28, 0)
    assert d.describe() == "ccache: 30/33 compilations from cache (91% hit rate); 2 local, 28 remote hits"
    assert d.to_json() == {
        "hits": 30,
        "misses": 3,
        "hit_rate": 30 / 33,
        "local_hits": 2,
        "remote_hits": 28,
        "remote_errors": 0,
    }


def test_remote_failures_are_counted_and_named() -> None:
    after = {
        **BEFORE,
        "cache_miss": 9,
        "remote_storage_error": 3,
        "remote_storage_timeout": 1,
        "remote_storage_miss": 4,
    }
    d = delta(BEFORE, after)
    assert d.remote_errors == 4 and d.misses == 4
    assert d.describe().endswith("; 0 local, 0 remote hits, 4 remote errors/timeouts")
    notice = remote_failed_notice("LLVM build", d.remote_errors)
    assert "4 time(s) during the LLVM build" in notice and "toolchain.ccache-remote" in notice


def test_without_a_remote_the_summary_is_unchanged() -> None:
    after = {**BEFORE, "direct_cache_hit": 13, "local_storage_hit": 15, "cache_miss": 6}
    d = delta(BEFORE, after)
    assert d.describe() == "ccache: 3/4 compilations from cache (75% hit rate)"
    assert (d.local_hits, d.remote_hits) == (3, 0)


def test_old_ccache_without_storage_counters() -> None:
    # ccache 4.0-4.6 print no local_storage_hit: hits that were not remote were local.
    old_before = {"direct_cache_hit": 1, "cache_miss": 1}
    d = delta(old_before, {"direct_cache_hit": 6, "cache_miss": 2})
    assert (d.hits, d.local_hits, d.remote_hits, d.misses) == (5, 5, 0, 1)
