"""ccache remote storage: one shared second-level cache for a team (redis://, redis+unix://, http(s)://).

ccache (>= 4.4) keeps its local cache as the first level and consults the remote one on a local miss.
When the remote is down or slow, ccache itself carries on without it (a miss, counted as
remote_storage_error/timeout); tritondev only sets short timeouts so a dead server costs
milliseconds, and warns. Credentials in the URL never reach a terminal, log or JSON document:
everything shown goes through bootstrap.core.redact.

A shared cache only pays when two machines compile the *same* command line. Compile commands hold
absolute paths (-I<workspace>/src/...), and with -g ccache also hashes the current directory, so
two workspaces in different folders would never share an entry. With a remote configured, ccache
therefore also gets base_dir = the workspace (absolute paths below it become relative) and
hash_dir = false (objects from the cache name the first builder's directory in their debug info).
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from packaging.version import Version

from bootstrap.core.errors import ConfigError
from bootstrap.core.redact import redact
from bootstrap.core.settings.values import RemoteStorage, ccache_url, parse_remote_url
from bootstrap.pipeline.host.toolchain import Tool

MIN_CCACHE = Version("4.4")
# ccache 4.4-4.6 called it secondary storage; 4.7 renamed it to remote storage.
RENAMED_IN = Version("4.7")
# The storage backend (`ccache --version`, "Features:") each scheme needs.
FEATURE_OF = {
    "redis": "redis-storage",
    "redis+unix": "redis+unix-storage",
    "http": "http-storage",
    "https": "http-storage",
}


def env_for(
    remote: RemoteStorage | None,
    ccache_version: Version | None,
    *,
    base_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Environment for every build step: the remote as ccache's second level, local cache first.

    base_dir (the workspace) makes compile commands the same from one workspace to the next; a
    CCACHE_BASEDIR or CCACHE_NOHASHDIR the user set (in `environ`) is left as it is.
    """
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
    env = {var: remote.ccache_value()}
    user = environ or {}
    if base_dir is not None and "CCACHE_BASEDIR" not in user:
        env["CCACHE_BASEDIR"] = str(base_dir)
    if base_dir is not None and not {"CCACHE_NOHASHDIR", "CCACHE_HASHDIR"} & set(user):
        env["CCACHE_NOHASHDIR"] = "1"
    return env


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
    answered: bool = True  # the server answered at all (False: no connection, or no reply in time)


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
        reason = str(exc) or type(exc).__name__
        return Reachability(False, redact(reason), time.monotonic() - started, answered=isinstance(exc, ValueError))


def _redis_ping(remote: RemoteStorage, timeout: float) -> str:
    parts = urlsplit(remote.base)
    sock: socket.socket
    if parts.scheme == "redis+unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(unquote(parts.path))
        except OSError:
            sock.close()
            raise
    else:
        sock = socket.create_connection((parts.hostname or "", parts.port or 6379), timeout=timeout)
    with sock:
        reader = sock.makefile("rb")
        auth = redis_auth_args(remote)
        if auth:
            sock.sendall(_resp(["AUTH", *auth]))
            reply = _reply_line(reader)
            if not reply.startswith(b"+OK"):
                # The server's words (WRONGPASS ...) never hold the password itself.
                raise ValueError(f"the server refused the credentials: {reply.decode(errors='replace')[:80]}")
        sock.sendall(_resp(["PING"]))
        reply = _reply_line(reader)
        if reply.startswith(b"-NOAUTH"):
            raise ValueError("the server needs a password: redis://[USER:]PASSWORD@HOST")
        if not reply.startswith(b"+PONG"):
            raise ValueError(f"unexpected answer to PING: {reply[:40].decode(errors='replace')!r}")
    return "PONG"


def redis_auth_args(remote: RemoteStorage) -> list[str]:
    """AUTH's arguments as ccache sends them for the URL it is given (ccache_url of the user's):
    the decoded user info split at its first ':'; nothing before it means no AUTH at all, a lone
    part is the password (redis://PASSWORD@host), two are user and password."""
    netloc = urlsplit(ccache_url(remote.base)).netloc
    userinfo, at, _ = netloc.rpartition("@")
    left, colon, right = unquote(userinfo).partition(":")
    if not at or not left:
        return []
    return [left, right] if colon else [left]


def _reply_line(reader: BinaryIO) -> bytes:
    line = reader.readline(512)
    if not line:
        raise ConnectionResetError("the server closed the connection")
    return line.rstrip(b"\r\n")


def _resp(args: list[str]) -> bytes:
    out = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def _http_head(remote: RemoteStorage, timeout: float) -> str:
    import requests

    try:
        response = requests.head(remote.base, timeout=timeout, allow_redirects=False)
    except requests.RequestException as exc:
        raise OSError(redact(str(exc))) from None
    # Any HTTP answer below 500 means the server is up: ccache stores objects under the path, so a
    # 404 (or 405 for HEAD) on the folder itself is fine; 401/403 say the credentials are wrong.
    if response.status_code in (401, 403):
        raise ValueError(f"HTTP {response.status_code}: the server refused the credentials")
    if response.status_code >= 500:
        raise ValueError(f"HTTP {response.status_code}")
    return f"HTTP {response.status_code}"


def remote_env(
    url: str | None, ccache: Tool | None, workspace: Path, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """CCACHE_REMOTE_STORAGE for the build commands only (the runner's echo and logs mask the password),
    with the workspace as ccache's base_dir so that other workspaces' entries match."""
    if not url or ccache is None:
        return {}
    from packaging.version import InvalidVersion, Version

    try:
        version: Version | None = Version(ccache.version)
    except InvalidVersion:
        version = None
    user = os.environ if environ is None else environ
    return env_for(parse_remote_url(url), version, base_dir=workspace, environ=user)
