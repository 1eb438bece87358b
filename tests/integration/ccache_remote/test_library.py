"""bootstrap.pipeline.ccache.remote: URL rules, the environment handed to ccache, the reachability probe, and
hit counting, checked against a real redis-server, a real HTTP server and the real ccache."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.version import Version

from bootstrap.core.settings.values import parse_remote_url
from bootstrap.pipeline.ccache.remote import env_for, parse_ccache_version, probe
from bootstrap.pipeline.ccache.stats import delta, parse_print_stats
from tests.integration.ccache_remote.redis import PASSWORD, USER, RedisServer

CCACHE = shutil.which("ccache")
CC = shutil.which("clang") or shutil.which("gcc")


# -- URLs ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ccache_version_text() -> str:
    if CCACHE is None:
        pytest.skip("ccache is not installed")
    return subprocess.run([CCACHE, "--version"], capture_output=True, text=True, check=True).stdout


def _compile(folder: Path, ccache_dir: Path, extra: dict[str, str]) -> dict[str, int]:
    """Compile one small C file in `folder` through ccache; return the counters of `ccache_dir`."""
    assert CCACHE is not None and CC is not None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "inc").mkdir(exist_ok=True)
    (folder / "inc" / "k.h").write_text("#define K 42\n")
    (folder / "k.c").write_text('#include "k.h"\nint k(void) { return K; }\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("CCACHE_")}
    env.update(CCACHE_DIR=str(ccache_dir), **extra)
    subprocess.run(
        [CCACHE, CC, "-g", "-c", f"-I{folder / 'inc'}", str(folder / "k.c"), "-o", str(folder / "k.o")],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    assert (folder / "k.o").stat().st_size > 0
    stats = subprocess.run([CCACHE, "--print-stats"], env=env, capture_output=True, text=True, check=True).stdout
    return parse_print_stats(stats)


@pytest.mark.skipif(CCACHE is None or CC is None, reason="needs ccache and a C compiler")
def test_real_ccache_shares_through_redis_across_folders(
    ccache_version_text: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    version = parse_ccache_version(ccache_version_text)
    if version is None or version < Version("4.7"):
        pytest.skip("the stats keys counted here are ccache >= 4.7's")
    remote = parse_remote_url(redis_server.url)
    # Two "machines": different folders (absolute -I paths, -g), different local caches.
    a, b = tmp_path / "alice" / "ws", tmp_path / "bob" / "elsewhere" / "ws"
    zero: dict[str, int] = {}
    first = _compile(a, tmp_path / "cache-a", env_for(remote, version, base_dir=a))
    assert delta(zero, first).figures() == (0, 0, 1, 0)
    second = _compile(b, tmp_path / "cache-b", env_for(remote, version, base_dir=b))
    counts = delta(zero, second)
    assert (counts.local_hits, counts.remote_hits, counts.misses) == (0, 1, 0)
    assert counts.remote_rate == 1.0
    # The remote hit was also stored locally: the next compile there is a local hit, not a remote one.
    third = _compile(b, tmp_path / "cache-b", env_for(remote, version, base_dir=b))
    assert delta(second, third).figures() == (1, 0, 0, 0)
    assert delta(second, third).hit_rate == 1.0


@pytest.mark.skipif(CCACHE is None or CC is None, reason="needs ccache and a C compiler")
def test_real_ccache_authenticates_with_the_usual_empty_user_url(
    ccache_version_text: str, password_redis: RedisServer, tmp_path: Path
) -> None:
    """redis://:PASSWORD@host given to ccache as it is sends no AUTH (every call fails); as handed by
    env_for it stores and fetches."""
    version = parse_ccache_version(ccache_version_text)
    if version is None or version < Version("4.7"):
        pytest.skip("the stats keys counted here are ccache >= 4.7's")
    url = password_redis.url
    assert url.startswith("redis://:")
    raw = _compile(tmp_path / "raw", tmp_path / "cache-raw", {"CCACHE_REMOTE_STORAGE": url})
    assert delta({}, raw).remote_errors >= 1  # what a build got before: no AUTH at all
    remote = parse_remote_url(url)
    stored = _compile(tmp_path / "a", tmp_path / "cache-a", env_for(remote, version, base_dir=tmp_path / "a"))
    assert delta({}, stored).figures() == (0, 0, 1, 0) and stored["remote_storage_write"] >= 1
    fetched = _compile(tmp_path / "b", tmp_path / "cache-b", env_for(remote, version, base_dir=tmp_path / "b"))
    assert delta({}, fetched).figures() == (0, 1, 0, 0)


@pytest.mark.skipif(CCACHE is None or CC is None, reason="needs ccache and a C compiler")
def test_real_ccache_goes_on_without_a_stopped_remote(
    ccache_version_text: str, stopped_redis: RedisServer, tmp_path: Path
) -> None:
    version = parse_ccache_version(ccache_version_text)
    if version is None or version < Version("4.7"):
        pytest.skip("the stats keys counted here are ccache >= 4.7's")
    remote = parse_remote_url(stopped_redis.url)
    stats = _compile(tmp_path / "ws", tmp_path / "cache", env_for(remote, version, base_dir=tmp_path / "ws"))
    counts = delta({}, stats)
    assert counts.misses == 1 and counts.remote_errors >= 1


def test_probe_stopped_redis_fails_fast(stopped_redis: RedisServer) -> None:
    reach = probe(parse_remote_url(stopped_redis.url), timeout=2)
    assert not reach.ok and reach.seconds < 2
    assert PASSWORD not in reach.detail


def test_probe_redis_with_credentials(redis_server: RedisServer) -> None:
    reach = probe(parse_remote_url(redis_server.url))
    assert reach.ok and reach.detail == "PONG"


def test_probe_redis_over_a_unix_socket(redis_server: RedisServer) -> None:
    assert redis_server.socket is not None
    reach = probe(parse_remote_url(f"redis+unix://{USER}:{PASSWORD}@{redis_server.socket}"))
    assert reach.ok, reach.detail


@pytest.mark.parametrize(
    ("userinfo", "needle"), [("user:wrong-pw@", "refused the credentials"), ("", "needs a password")]
)
def test_probe_redis_refused(redis_server: RedisServer, userinfo: str, needle: str) -> None:
    reach = probe(parse_remote_url(f"redis://{userinfo}127.0.0.1:{redis_server.port}"))
    assert not reach.ok and needle in reach.detail
    assert "wrong-pw" not in reach.detail
