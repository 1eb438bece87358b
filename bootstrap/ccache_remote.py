"""ccache remote storage: one shared second-level cache for a team (redis://, redis+unix://, http(s)://).

ccache (>= 4.4) keeps its local cache as the first level and consults the remote one on a local miss.
When the remote is down or slow, ccache itself carries on without it (a miss, counted as
remote_storage_error/timeout); tritondev only sets short timeouts so a dead server costs
milliseconds, and warns. Credentials in the URL never reach a terminal, log or JSON document:
everything shown goes through bootstrap.redact.
"""

from __future__ import annotations

import re
import socket
import time
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from packaging.version import Version

from bootstrap.errors import ConfigError
from bootstrap.redact import redact

SCHEMES = ("redis", "redis+unix", "http", "https")
MIN_CCACHE = Version("4.4")
# ccache 4.4-4.6 called it secondary storage; 4.7 renamed it to remote storage.
RENAMED_IN = Version("4.7")
# A dead server must not slow every compile down: ccache's own default connect timeout is 100 ms
# (redis) / 100 ms (http); keep it, and bound each operation so a slow server is given up quickly.
DEFAULT_ATTRIBUTES = {"connect-timeout": "500", "operation-timeout": "5000"}


@dataclass(frozen=True)
class RemoteStorage:
    url: str  # as given, possibly with credentials: never print this

    @property
    def scheme(self) -> str:
        return urlsplit(self.url).scheme

    @property
    def shown(self) -> str:
        return redact(self.url)

    def ccache_value(self) -> str:
        """The value of CCACHE_REMOTE_STORAGE: URL plus timeout attributes ccache understands."""
        base, _, attrs = self.url.partition("|")
        given = dict(a.split("=", 1) for a in attrs.split("|") if "=" in a) if attrs else {}
        merged = {**DEFAULT_ATTRIBUTES, **given}
        return base + "".join(f"|{k}={v}" for k, v in merged.items())


def parse_remote_url(text: str) -> RemoteStorage:
    """Validate a remote storage URL; a clear ConfigError (exit 2) for anything ccache would reject."""
    text = text.strip()
    base = text.partition("|")[0]
    parts = urlsplit(base)
    if parts.scheme not in SCHEMES:
        raise ConfigError(
            f"unsupported ccache remote URL {redact(text)!r}",
            fix="use redis://HOST[:PORT], redis+unix:///path/to/socket, or http(s)://HOST/PATH",
        )
    if parts.scheme == "redis+unix":
        if not parts.path:
            raise ConfigError(f"{redact(text)!r} names no socket path", fix="redis+unix:///run/redis/redis.sock")
    elif not parts.hostname:
        raise ConfigError(f"{redact(text)!r} names no host", fix="e.g. redis://cache.example.com:6379")
    try:
        _ = parts.port
    except ValueError:
        raise ConfigError(f"{redact(text)!r} has an invalid port", fix="use a port between 1 and 65535") from None
    return RemoteStorage(text)


def env_for(remote: RemoteStorage | None, ccache_version: Version | None) -> dict[str, str]:
    """Environment for every build step: the remote as ccache's second level, local cache first."""
    if remote is None:
        return {}
    if ccache_version is not None and ccache_version < MIN_CCACHE:
        raise ConfigError(
            f"ccache {ccache_version} has no remote storage (needs >= {MIN_CCACHE})",
            fix="upgrade ccache (e.g. pip install ccache, or your distribution's backports), or drop --ccache-remote",
        )
    var = "CCACHE_REMOTE_STORAGE"
    if ccache_version is not None and ccache_version < RENAMED_IN:
        var = "CCACHE_SECONDARY_STORAGE"
    return {var: remote.ccache_value()}


def parse_ccache_version(text: str) -> Version | None:
    match = re.search(r"ccache version (\d+\.\d+(?:\.\d+)?)", text)
    return Version(match.group(1)) if match else None


def ccache_features(text: str) -> set[str]:
    """Storage backends this ccache was built with, from `ccache --version` ("Features: ...")."""
    match = re.search(r"^Features:\s*(.+)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


@dataclass(frozen=True)
class Reachability:
    ok: bool
    detail: str
    seconds: float


def probe(remote: RemoteStorage, timeout: float = 2.0) -> Reachability:
    """Is the remote answering? Redis: AUTH (if any) + PING over a socket; HTTP: a HEAD request.

    A read-only probe over the network, not a subprocess: no process is started here.
    """
    started = time.monotonic()
    try:
        if remote.scheme.startswith("redis"):
            detail = _redis_ping(remote, timeout)
        else:
            detail = _http_head(remote, timeout)
        return Reachability(True, detail, time.monotonic() - started)
    except (OSError, ValueError) as exc:
        return Reachability(False, redact(f"{type(exc).__name__}: {exc}"), time.monotonic() - started)


def _redis_ping(remote: RemoteStorage, timeout: float) -> str:
    parts = urlsplit(remote.url.partition("|")[0])
    sock: socket.socket
    if parts.scheme == "redis+unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(unquote(parts.path))
    else:
        sock = socket.create_connection((parts.hostname or "", parts.port or 6379), timeout=timeout)
    with sock:
        if parts.password is not None or parts.username:
            args = [parts.username, parts.password] if parts.username and parts.password else [
                parts.password or parts.username or ""
            ]
            sock.sendall(_resp(["AUTH", *[unquote(a or "") for a in args]]))
            reply = sock.recv(256)
            if not reply.startswith(b"+OK"):
                raise ValueError("the server refused the credentials")
        sock.sendall(_resp(["PING"]))
        reply = sock.recv(256)
        if not reply.startswith(b"+PONG"):
            raise ValueError(f"unexpected answer to PING: {reply[:40]!r}")
    return "PONG"


def _resp(args: list[str]) -> bytes:
    out = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def _http_head(remote: RemoteStorage, timeout: float) -> str:
    import requests

    url = remote.url.partition("|")[0]
    try:
        response = requests.head(url, timeout=timeout, allow_redirects=True)
    except requests.RequestException as exc:
        raise OSError(str(exc)) from None
    # Any HTTP answer means the server is up; ccache stores objects under the path, so 404 is fine.
    if response.status_code >= 500:
        raise ValueError(f"HTTP {response.status_code}")
    return f"HTTP {response.status_code}"


@dataclass(frozen=True)
class HitCounts:
    local_hits: int
    remote_hits: int
    misses: int

    @property
    def total(self) -> int:
        return self.local_hits + self.remote_hits + self.misses

    def remote_rate(self) -> float:
        return self.remote_hits / self.total if self.total else 0.0

    def hit_rate(self) -> float:
        return (self.local_hits + self.remote_hits) / self.total if self.total else 0.0


def parse_print_stats(text: str) -> dict[str, int]:
    """`ccache --print-stats` (tab-separated key/value lines) as a dict."""
    stats: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition("\t")
        if value.strip().lstrip("-").isdigit():
            stats[key.strip()] = int(value.strip())
    return stats


def hit_counts(before: dict[str, int], after: dict[str, int]) -> HitCounts:
    """Hits and misses of one build, from stats taken before and after it.

    A remote hit is a local miss that the remote answered, so local hits are
    local_storage_hit and misses are the cache misses left after both levels.
    """

    def delta(key: str) -> int:
        return max(0, after.get(key, 0) - before.get(key, 0))

    return HitCounts(
        local_hits=delta("local_storage_hit"),
        remote_hits=delta("remote_storage_hit"),
        misses=delta("cache_miss"),
    )
