"""The build summary's ccache figures (bootstrap.pipeline.ccache_stats) with and without a remote, and bad
remote settings refused before anything changes."""

from __future__ import annotations

import json
from pathlib import Path

from bootstrap.pipeline.ccache_stats import delta
from bootstrap.pipeline.setup import remote_failed_notice
from tests.build.harness import base_env, tritondev

# Counter names as ccache 4.7 prints them (`ccache --print-stats`).
BEFORE = {"direct_cache_hit": 10, "preprocessed_cache_hit": 2, "cache_miss": 5, "local_storage_hit": 12,
          "remote_storage_hit": 0, "remote_storage_miss": 0, "remote_storage_error": 0}


def test_remote_hits_are_split_out() -> None:
    after = {**BEFORE, "direct_cache_hit": 40, "local_storage_hit": 14, "remote_storage_hit": 28,
             "remote_storage_miss": 3, "cache_miss": 8}
    d = delta(BEFORE, after)
    assert (d.hits, d.misses, d.local_hits, d.remote_hits, d.remote_errors) == (30, 3, 2, 28, 0)
    assert d.describe() == "ccache: 30/33 compilations from cache (91% hit rate); 2 local, 28 remote hits"
    assert d.to_json() == {"hits": 30, "misses": 3, "hit_rate": 30 / 33, "local_hits": 2, "remote_hits": 28,
                           "remote_errors": 0}


def test_remote_failures_are_counted_and_named() -> None:
    after = {**BEFORE, "cache_miss": 9, "remote_storage_error": 3, "remote_storage_timeout": 1,
             "remote_storage_miss": 4}
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


def test_bad_remote_url_is_exit_2_and_builds_nothing(tmp_path: Path) -> None:
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    ws = tmp_path / "ws"
    for url, needle in (("ftp://u:hunter2@h/x", "unsupported ccache remote URL"),
                        ("redis://u:hunt@er2@h", "percent-encode")):
        proc = tritondev("setup", "--workspace", str(ws), "--ccache-remote", url, "--json", env=env, timeout=120)
        assert proc.returncode == 2, proc.stderr
        error = json.loads(proc.stdout)
        assert needle in error["message"] + (error["fix"] or "")
        assert "hunt" not in proc.stdout + proc.stderr and "er2" not in proc.stdout + proc.stderr
        # The URL is judged while settings load: the workspace is not even created.
        assert not ws.exists()
    # A bad URL in the environment is a bad setting like any other: every command refuses it (exit 2)
    # while settings load, before anything runs, and the password stays masked.
    env["TRITONDEV_CCACHE_REMOTE"] = "ftp://u:hunter2@h/x"
    proc = tritondev("doctor", "--workspace", str(ws), "--check", "toolchain.ccache-remote", "--json", env=env)
    assert proc.returncode == 2
    assert "unsupported ccache remote URL" in json.loads(proc.stdout)["message"]
    assert "hunter2" not in proc.stdout + proc.stderr
