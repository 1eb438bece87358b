"""bootstrap.pipeline.ccache.remote: URL rules, the environment handed to ccache, the reachability probe, and
hit counting, checked against a real redis-server, a real HTTP server and the real ccache."""

from __future__ import annotations

import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from bootstrap.core.errors import ConfigError, ExitCode
from bootstrap.core.settings.values import REMOTE_DEFAULT_ATTRIBUTES, ccache_url, parse_remote_url
from bootstrap.pipeline.ccache.proof import judge, remote_counters
from bootstrap.pipeline.ccache.remote import (
    ccache_features,
    env_for,
    parse_ccache_version,
    probe,
    redis_auth_args,
)
from bootstrap.pipeline.ccache.stats import delta
from tests.integration.ccache_remote.redis import PASSWORD, free_port

CCACHE = shutil.which("ccache")


@pytest.mark.parametrize(
    "url",
    [
        "redis://cache.example.com",
        "redis://:pw@10.0.0.5:6380/2",
        "redis://user:pw@host:6379",
        "redis+unix:///run/redis/redis.sock",
        "redis+unix:/run/redis.sock",
        "http://cache:8080/ccache/",
        "https://user:token@cache.example.com/ccache|layout=bazel",
    ],
)
def test_accepted_urls(url: str) -> None:
    assert parse_remote_url(f"  {url} ").url == url


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("ftp://host/x", "unsupported"),
        ("cache.example.com:6379", "unsupported"),
        ("", "unsupported"),
        ("redis://", "names no host"),
        ("http:///path", "names no host"),
        ("redis+unix://", "names no socket path"),
        ("redis://host:99999", "invalid port"),
        ("redis://host:abc", "invalid port"),
        ("redis://host:0", "invalid port"),
    ],
)
def test_rejected_urls_are_config_errors(url: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_remote_url(url)
    assert needle in info.value.message
    assert info.value.exit_code == ExitCode.USAGE and info.value.fix


def test_a_rejected_url_never_shows_its_password() -> None:
    for url in ("ftp://u:hunter2@host", "redis://u:hunter2@host:99999", "redis://u:hunt@er2@host"):
        with pytest.raises(ConfigError) as info:
            parse_remote_url(url)
        assert "hunt" not in info.value.message and "er2" not in info.value.message, url


def test_ccache_value_adds_timeouts_and_keeps_the_users_attributes() -> None:
    plain = parse_remote_url("redis://h").ccache_value()
    assert plain == "redis://h|" + "|".join(f"{k}={v}" for k, v in REMOTE_DEFAULT_ATTRIBUTES.items())
    own = parse_remote_url("http://h/c|read-only|connect-timeout=50|layout=bazel").ccache_value()
    parts = own.split("|")
    assert parts[0] == "http://h/c"
    assert "read-only" in parts  # a flag without '=' must survive
    assert "connect-timeout=50" in parts and "connect-timeout=100" not in parts
    assert "layout=bazel" in parts and f"operation-timeout={REMOTE_DEFAULT_ATTRIBUTES['operation-timeout']}" in parts


def test_auth_arguments_follow_ccaches_reading_of_the_url() -> None:
    assert redis_auth_args(parse_remote_url("redis://h")) == []
    assert redis_auth_args(parse_remote_url("redis://pw@h")) == ["pw"]  # a lone userinfo is the password
    assert redis_auth_args(parse_remote_url("redis://:pw@h")) == ["pw"]
    assert redis_auth_args(parse_remote_url("redis://u:p%40ss@h")) == ["u", "p@ss"]


@pytest.mark.parametrize(
    ("given", "handed"),
    [
        # The usual Redis URL (empty user) would make ccache send no AUTH at all.
        ("redis://:s3cret@h:6379", "redis://s3cret@h:6379"),
        ("redis://:s3cret@h:6379/2", "redis://s3cret@h:6379/2"),
        ("redis+unix://:s3cret@localhost/run/redis.sock", "redis+unix://s3cret@localhost/run/redis.sock"),
        # ccache splits the decoded user info at its first ':': such a password needs a user.
        ("redis://:a%3Ab@h", "redis://default:a%3Ab@h"),
        ("redis://:@h", "redis://h"),
        # Forms ccache already reads right stay as they are.
        ("redis://u:p@h", "redis://u:p@h"),
        ("redis://p@h", "redis://p@h"),
        ("redis://h", "redis://h"),
        ("http://:t@h/c", "http://:t@h/c"),
    ],
)
def test_ccache_gets_a_url_it_authenticates_with(given: str, handed: str) -> None:
    assert ccache_url(given) == handed
    assert parse_remote_url(given + "|read-only").ccache_value().startswith(handed + "|read-only|")


@given(password=st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=20))
def test_any_password_with_an_empty_user_reaches_ccache_whole(password: str) -> None:
    """Whatever the password, ccache's own reading of the handed URL (decode, split at the first ':')
    sends exactly that password, which redis_auth_args mirrors."""
    from urllib.parse import quote

    remote = parse_remote_url(f"redis://:{quote(password, safe='')}@cache.example.com:6379")
    assert redis_auth_args(remote)[-1] == password
    assert len(redis_auth_args(remote)) == (2 if ":" in password else 1)


def test_the_round_trip_is_judged_from_ccaches_counters() -> None:
    stored = {"remote_storage_write": 2, "remote_storage_miss": 1, "cache_miss": 1}
    fetched = {"remote_storage_hit": 1, "remote_storage_read_hit": 2}
    assert judge(stored, fetched, read_only=False).ok
    assert not judge(stored, {"remote_storage_miss": 1}, read_only=False).ok  # stored, never came back
    refused = judge({"remote_storage_error": 1}, {"remote_storage_error": 1}, read_only=False)
    assert not refused.ok and refused.errors == 2
    assert judge({"remote_storage_miss": 1}, {"remote_storage_miss": 1}, read_only=True).ok
    assert not judge({"remote_storage_timeout": 1}, {}, read_only=True).ok
    # ccache 4.4-4.6 counted the same under the old name.
    assert remote_counters({"secondary_storage_hit": 1, "cache_miss": 3}) == {"remote_storage_hit": 1}


# -- environment -----------------------------------------------------------------------------------


def test_env_for_versions() -> None:
    remote = parse_remote_url("redis://h")
    assert env_for(None, Version("4.7")) == {}
    assert set(env_for(remote, Version("4.7.5"))) == {"CCACHE_REMOTE_STORAGE"}
    assert set(env_for(remote, None)) == {"CCACHE_REMOTE_STORAGE"}  # unknown version: today's name
    assert set(env_for(remote, Version("4.5"))) == {"CCACHE_SECONDARY_STORAGE"}
    with pytest.raises(ConfigError) as info:
        env_for(remote, Version("4.3"))
    assert "4.4" in info.value.message


def test_env_for_makes_workspaces_share_entries_unless_the_user_said_otherwise(tmp_path: Path) -> None:
    remote = parse_remote_url("redis://h")
    env = env_for(remote, Version("4.7"), base_dir=tmp_path)
    assert env["CCACHE_BASEDIR"] == str(tmp_path) and env["CCACHE_NOHASHDIR"] == "1"
    mine = env_for(remote, Version("4.7"), base_dir=tmp_path, environ={"CCACHE_BASEDIR": "/x", "CCACHE_HASHDIR": "1"})
    assert "CCACHE_BASEDIR" not in mine and "CCACHE_NOHASHDIR" not in mine


# -- the real ccache -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ccache_version_text() -> str:
    if CCACHE is None:
        pytest.skip("ccache is not installed")
    return subprocess.run([CCACHE, "--version"], capture_output=True, text=True, check=True).stdout


def test_version_and_features_of_the_installed_ccache(ccache_version_text: str) -> None:
    version = parse_ccache_version(ccache_version_text)
    assert version is not None and version >= Version("4.0")
    assert version == Version(ccache_version_text.split()[2])
    if version >= Version("4.4"):
        assert "redis-storage" in ccache_features(ccache_version_text)
    assert parse_ccache_version("no version here") is None and ccache_features("") == set()


def test_a_delta_is_never_negative() -> None:
    # A `ccache -z` between the two readings must not give negative figures.
    counts = delta({"cache_miss": 5, "remote_storage_hit": 3}, {"cache_miss": 1})
    assert (counts.local_hits, counts.remote_hits, counts.misses, counts.calls) == (0, 0, 0, 0)
    assert counts.remote_rate == 0.0 and counts.hit_rate is None


# -- probe -----------------------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    status = 404

    def do_HEAD(self) -> None:
        self.send_response(self.status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[tuple[http.server.ThreadingHTTPServer, type[_Handler]]]:
    handler = type("Handler", (_Handler,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server, handler
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(("status", "ok"), [(404, True), (200, True), (401, False), (503, False)])
def test_probe_http(http_server: tuple[http.server.ThreadingHTTPServer, type[_Handler]], status: int, ok: bool) -> None:
    server, handler = http_server
    handler.status = status
    reach = probe(parse_remote_url(f"http://u:{PASSWORD}@127.0.0.1:{server.server_address[1]}/ccache"))
    assert reach.ok is ok and f"HTTP {status}" in reach.detail


def test_probe_http_nothing_listening() -> None:
    reach = probe(parse_remote_url(f"http://u:{PASSWORD}@127.0.0.1:{free_port()}/ccache"), timeout=2)
    assert not reach.ok and PASSWORD not in reach.detail
