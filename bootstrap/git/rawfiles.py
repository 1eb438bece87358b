"""Files of a repository at one ref as raw downloads over HTTPS (`<base>/<ref>/<path>`, the
raw.githubusercontent.com layout), with timeouts, retries with backoff, and a clear error offline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bootstrap.core.errors import ExternalError, Offline
from bootstrap.core.redact import redact
from bootstrap.git.refs import is_commit_like

if TYPE_CHECKING:
    import requests

RAW_GITHUB = "https://raw.githubusercontent.com"

# Network policy for raw downloads: (connect, read) timeouts in seconds, and retries with
# exponential backoff on connection errors, timeouts, 429 and 5xx.
TIMEOUT = (10.0, 30.0)
RETRIES = 3
BACKOFF = 0.5
_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_FILE_BYTES = 1 << 20  # pin files are one line; anything bigger is not one


@dataclass
class RawReader:
    """Files at `<base>/<ref>/<path>` (raw.githubusercontent.com layout), via requests."""

    base: str
    ref: str
    retries: int = RETRIES
    backoff: float = BACKOFF
    timeout: tuple[float, float] = TIMEOUT
    commit: str | None = None
    notify: Callable[[str], None] | None = None  # told of each retry as it happens (-v)
    _session: requests.Session | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if is_commit_like(self.ref):
            self.commit = self.ref.lower()

    @property
    def description(self) -> str:
        return f"{redact(self.base)} at {self.ref}"

    def _session_for(self) -> requests.Session:
        if self._session is None:
            from urllib.parse import urlsplit

            import requests

            session = requests.Session()
            host = urlsplit(self.base).hostname or ""
            # A local test server must not be sent through a proxy from the environment.
            session.trust_env = host not in ("127.0.0.1", "localhost", "::1")
            session.headers["User-Agent"] = "tritondev"
            self._session = session
        return self._session

    def url_of(self, path: str) -> str:
        return f"{self.base}/{self.ref}/{path}"

    def read(self, path: str) -> str | None:
        import requests

        url = self.url_of(path)
        problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                delay = self.backoff * 2 ** (attempt - 1)
                if self.notify is not None:
                    self.notify(
                        f"{redact(url)}: {problem}; retrying in {delay:g} s "
                        f"(attempt {attempt + 1} of {self.retries + 1})"
                    )
                time.sleep(delay)
            try:
                response = self._session_for().get(url, timeout=self.timeout, allow_redirects=True, stream=True)
            except requests.exceptions.RequestException as exc:
                if is_name_not_resolved(exc):
                    raise offline(url, "raw download") from None
                problem = describe_network_error(exc)
                continue
            with response:
                if response.status_code == 404:
                    return None
                if response.status_code in _RETRY_STATUS:
                    problem = f"HTTP {response.status_code}"
                    continue
                if response.status_code != 200:
                    raise ExternalError(
                        f"downloading {redact(url)} failed: HTTP {response.status_code}",
                        fix="check the URL and that the server allows anonymous reads",
                    )
                body = _read_body(response)
            if body is None:  # the server closed the connection mid-body: an interrupted download
                problem = "the connection was closed before the whole file arrived"
                continue
            if len(body) > _MAX_FILE_BYTES:
                raise ExternalError(f"{redact(url)} is larger than 1 MiB: not a pin file", fix="check the URL")
            return bytes(body).decode("utf-8", errors="replace")
        raise ExternalError(
            f"cannot download {redact(url)} after {self.retries + 1} attempts: {problem}",
            fix="check the network (offline?); or point --pytorch-url/--triton-url at a local repository,"
            " or use --mirror DIR",
        )


def _read_body(response: requests.Response) -> bytes | None:
    """The body (at most 1 MiB + 1 byte), or None when it arrived incomplete."""
    import urllib3

    try:
        body = bytes(response.raw.read(_MAX_FILE_BYTES + 1, decode_content=True))
    except (urllib3.exceptions.HTTPError, OSError):
        return None
    announced = response.headers.get("Content-Length", "")
    # An older urllib3 returns a short body without complaint; the announced length tells.
    short = len(body) <= _MAX_FILE_BYTES and len(body) < int(announced) if announced.isdigit() else False
    if short and "Content-Encoding" not in response.headers:
        return None
    return body


_NOT_RESOLVED = (
    "Name or service not known",
    "Temporary failure in name resolution",
    "nodename nor servname",
    "No address associated with hostname",
    "NameResolutionError",
    "Could not resolve host",
    "could not resolve host",
)


def is_name_not_resolved(exc: BaseException) -> bool:
    """A failure to resolve the host name (a socket.gaierror somewhere in the chain), as opposed to a host
    that answered badly or not at all."""
    import socket

    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, socket.gaierror) or any(text in str(current) for text in _NOT_RESOLVED):
            return True
        pending += [e for e in (current.__cause__, current.__context__, *current.args) if isinstance(e, BaseException)]
    return False


def offline(url: str, what: str) -> Offline:
    """The error for a host of `url` that does not resolve, `what` being the attempt (a raw download...)."""
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or url
    return Offline(
        f"cannot resolve {host} ({what} of {redact(url)}): no network, or no DNS for it",
        hosts=(host,),
        fix=OFFLINE_FIX,
    )


OFFLINE_FIX = (
    "connect to the network, or work from what is here: a local repository or mirror (--pytorch-url, "
    "--triton-url PATH, --mirror DIR)"
)


def describe_network_error(exc: Exception) -> str:
    import requests

    if isinstance(exc, requests.exceptions.Timeout):
        return "timed out"
    if isinstance(exc, requests.exceptions.SSLError):
        return "TLS error"
    if isinstance(exc, requests.exceptions.ConnectionError):
        return "cannot connect (offline, or the host is unreachable)"
    return type(exc).__name__


def raw_base_for_github(slug: str) -> str:
    return f"{RAW_GITHUB}/{slug}"
