"""Downloads of big files (prebuilt LLVM packages) over HTTP(S), through requests.

Streamed in 1 MiB chunks into `<dest>.part` and hashed as they arrive; a progress bar with size and
rate on stderr (none under --json); connect and read timeouts; retries with exponential backoff on
network errors, truncated bodies, 429 and 5xx. A download cut short (a dropped connection, Ctrl-C,
kill -9) resumes where it stopped, this run or the next: the request asks for the rest with
`Range: bytes=<size of .part>-`; a server that ignores Range (200, or a Content-Range that does not
start there) gets a fresh download. The `.part` file becomes `<dest>` only after its sha256 matched,
so nothing half-written ever looks complete; a file whose sum does not match is deleted and refused.
"""

from __future__ import annotations

import errno
import hashlib
import os
import queue
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ExternalError, Offline
from bootstrap.core.io import writes
from bootstrap.core.redact import redact
from bootstrap.git.rawfiles import describe_network_error, is_name_not_resolved

if TYPE_CHECKING:
    import requests
    from rich.console import Console
    from rich.progress import Progress, TaskID

TIMEOUT = (15.0, 60.0)  # (connect, read between two chunks) seconds
RETRIES = 5
BACKOFF = 1.0  # seconds before the first retry, doubled each time
MAX_BACKOFF = 30.0
CHUNK = 1 << 20
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
# 404: no such file. 409: Azure's answer of a retired storage account ("Public access is not
# permitted on this storage account"), which Triton's first LLVM host became. 410: gone.
MISSING_STATUS = frozenset({404, 409, 410})
_CONTENT_RANGE = re.compile(r"^\s*bytes\s+(\d{1,18})-(\d{1,18})/(\d{1,18}|\*)\s*$", re.IGNORECASE)


class NotOnServer(ExternalError):
    """The server says the file does not exist (or is no longer served)."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__(f"{redact(url)}: HTTP {status}")
        self.url = url
        self.status = status


class ChecksumMismatch(ExternalError):
    """The downloaded bytes are not the file they should be (exit 4); nothing was kept."""


def parse_content_range(value: str | None) -> tuple[int, int, int | None] | None:
    """(first byte, last byte, total or None for `*`) of a `Content-Range: bytes a-b/n` answer; None
    for anything else (a malformed or unsatisfied range)."""
    match = _CONTENT_RANGE.match(value or "")
    if not match:
        return None
    first, last = int(match.group(1)), int(match.group(2))
    total = None if match.group(3) == "*" else int(match.group(3))
    if last < first or (total is not None and last >= total):
        return None
    return first, last, total


def parse_content_length(value: str | None) -> int | None:
    """A Content-Length header's byte count; None when absent or not a plain decimal number."""
    text = (value or "").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def unsatisfied_total(value: str | None) -> int | None:
    """The size in a 416 answer's `Content-Range: bytes */<size>`."""
    match = re.match(r"^\s*bytes\s+\*/(\d{1,18})\s*$", value or "", re.IGNORECASE)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Fetched:
    path: Path
    sha256: str
    size: int
    received: int  # bytes that came over the network in this call
    resumed_from: int  # bytes of an earlier .part kept and not downloaded again
    attempts: int


class Meter:
    """Progress of one download: a rich bar with size and rate on a terminal, else a line per quarter."""

    def __init__(self, label: str, console: Console | None) -> None:
        self.label = label
        self.console = console
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._quarter = -1
        self._started = time.monotonic()
        self._first = 0

    def start(self, done: int, total: int | None) -> None:
        self._first, self._started = done, time.monotonic()
        if self.console is None:
            return
        if not self.console.is_terminal:
            self._line(done, total)
            return
        if self._bar is None:
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                DownloadColumn(),
                TransferSpeedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=total, completed=done)
        elif self._task is not None:
            self._bar.update(self._task, total=total, completed=done)

    def update(self, done: int, total: int | None) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done)
        elif self.console is not None:
            self._line(done, total)

    def _line(self, done: int, total: int | None) -> None:
        quarter = done * 4 // total if total else -1
        if quarter <= self._quarter and done:
            return
        self._quarter = quarter
        rate = (done - self._first) / max(time.monotonic() - self._started, 1e-3)
        size = f"{done / 2**20:.1f}" + (f"/{total / 2**20:.1f}" if total else "")
        if self.console is not None:
            self.console.print(f"{self.label}: {size} MiB, {rate / 2**20:.1f} MiB/s")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def session_for(url: str) -> requests.Session:
    from urllib.parse import urlsplit

    import requests

    session = requests.Session()
    host = urlsplit(url).hostname or ""
    # A local server (tests, a mirror on this machine) is never reached through a proxy.
    session.trust_env = host not in ("127.0.0.1", "localhost", "::1")
    session.headers["User-Agent"] = "tritondev"
    session.headers["Accept-Encoding"] = "identity"  # the bytes as stored: their sum is the package's
    if host.endswith(".blob.core.windows.net"):
        # Triton's build_helpers.py sends this too: Azure honours Range only from this API version on.
        session.headers["x-ms-version"] = "2011-08-18"
    return session


class _Part:
    """The `.part` file and the running sha256 of what it holds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.digest = hashlib.sha256()
        self.size = 0
        if path.is_file():
            with path.open("rb") as fh:
                while chunk := fh.read(CHUNK):
                    self.digest.update(chunk)
                    self.size += len(chunk)

    def restart(self) -> None:
        os.close(writes.open_file(self.path))
        self.digest, self.size = hashlib.sha256(), 0


def _retry_wait(attempt: int, backoff: float) -> None:
    time.sleep(min(backoff * 2 ** (attempt - 1), MAX_BACKOFF))


def download(
    url: str,
    dest: Path,
    *,
    sha256: str | None,
    console: Console | None = None,
    label: str = "download",
    retries: int = RETRIES,
    backoff: float = BACKOFF,
    timeout: tuple[float, float] = TIMEOUT,
) -> Fetched:
    """Fetch `url` into `dest` (resuming `<dest>.part`), check its sha256, and only then name it `dest`."""
    import requests

    dest.parent.mkdir(parents=True, exist_ok=True)
    part = _Part(dest.with_name(dest.name + ".part"))
    resumed_from, received, attempts, problem = part.size, 0, 0, ""
    meter = Meter(label, console)
    session = session_for(url)
    try:
        while True:
            if attempts > retries:
                raise ExternalError(
                    f"downloading {redact(url)} failed after {attempts} attempt{'s' * (attempts != 1)}: {problem}",
                    fix=f"check the network and run the same command again: the {part.size} bytes received are"
                    f" kept in {part.path} and the download resumes there",
                )
            if attempts:
                _retry_wait(attempts, backoff)
            attempts += 1
            try:
                outcome = _one_request(session, url, part, meter, timeout)
            except (requests.RequestException, OSError) as exc:
                if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
                    raise ExternalError(
                        f"the disk is full: {part.path} could not be written",
                        fix="free space and run the same command again (it resumes)",
                    ) from None
                if is_name_not_resolved(exc):  # it will not resolve in seconds either: no retry
                    raise unresolved(url, part) from None
                problem = _describe(exc)
                continue
            received += outcome.received
            if outcome.problem:
                problem = outcome.problem
                continue
            break
    finally:
        meter.stop()
        session.close()
    actual = part.digest.hexdigest()
    if sha256 is not None and actual != sha256.lower():
        part.path.unlink(missing_ok=True)
        raise ChecksumMismatch(
            f"{redact(url)} is not the expected file: sha256 {actual}, expected {sha256.lower()}; nothing was kept",
            fix="run again to download it afresh; if it persists, the server (or a proxy) serves another file",
        )
    part.path.replace(dest)
    return Fetched(dest, actual, part.size, received, resumed_from, attempts)


@dataclass(frozen=True)
class _Outcome:
    received: int
    problem: str = ""  # "" : complete


def _one_request(
    session: requests.Session, url: str, part: _Part, meter: Meter, timeout: tuple[float, float]
) -> _Outcome:
    headers = {"Range": f"bytes={part.size}-"} if part.size else {}
    expected: int | None  # bytes this answer should carry
    with session.get(url, headers=headers, stream=True, timeout=timeout, allow_redirects=True) as response:
        status = response.status_code
        if status in MISSING_STATUS:
            raise NotOnServer(url, status)
        if status in RETRY_STATUS:
            return _Outcome(0, f"HTTP {status}")
        if status == 416 and part.size:
            if unsatisfied_total(response.headers.get("Content-Range")) == part.size:
                return _Outcome(0)  # everything was already here
            part.restart()
            return _Outcome(0, "the server refused to resume; downloading afresh")
        if status == 206 and part.size:
            answered = parse_content_range(response.headers.get("Content-Range"))
            if answered is None or answered[0] != part.size:
                part.restart()
                return _Outcome(0, "the server resumed at another byte; downloading afresh")
            expected, total = answered[1] - answered[0] + 1, answered[2]
        elif status == 200:
            if part.size:
                part.restart()  # the server ignored Range: it sends the whole file
            expected = parse_content_length(response.headers.get("Content-Length"))
            total = expected
        else:
            raise ExternalError(
                f"downloading {redact(url)} failed: HTTP {status}",
                fix="check the URL (--llvm-prebuilt-url) and that the server allows anonymous reads",
            )
        return _stream(response, part, meter, expected, total)


class _Sink:
    """Writes and hashes the chunks in a thread of its own while the next one is being received (the
    socket, the file and sha256 all release the GIL): with a core to spare the download runs at the
    speed of the slower side instead of their sum. Chunks are written in order, so the .part file
    always holds a prefix of the file, whatever stops the download."""

    def __init__(self, part: _Part) -> None:
        self.part = part
        self.chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=16)
        self.error: OSError | None = None
        self.out = os.fdopen(writes.open_file(part.path, writes.Mode.APPEND), "ab")
        self.thread = threading.Thread(target=self._drain, name="download-writer", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while (chunk := self.chunks.get()) is not None:
            if self.error is not None:
                continue
            try:
                self.out.write(chunk)
            except OSError as exc:
                self.error = exc
                continue
            self.part.digest.update(chunk)
            self.part.size += len(chunk)

    def put(self, chunk: bytes) -> None:
        if self.error is not None:
            raise self.error
        self.chunks.put(chunk)

    def close(self) -> None:
        """Wait for what was received to be written and hashed; OSError if a write failed."""
        self.chunks.put(None)
        self.thread.join()
        self.out.close()
        if self.error is not None:
            raise self.error


def _stream(
    response: requests.Response, part: _Part, meter: Meter, expected: int | None, total: int | None
) -> _Outcome:
    """Append the body to the .part file as it arrives. read1 hands over what came before a dropped
    connection (a plain read of a large chunk would lose it), so a resume starts at the last byte."""
    import urllib3

    raw = response.raw
    read = raw.read1 if hasattr(raw, "read1") else raw.read  # urllib3 < 2.3 has no read1
    got, start, problem = 0, part.size, ""
    meter.start(start, total)
    sink = _Sink(part)
    try:
        while expected is None or got < expected:
            try:
                chunk = read(CHUNK, decode_content=False)
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                problem = _describe(exc)
                break
            if not chunk:
                break
            sink.put(chunk)
            got += len(chunk)
            meter.update(start + got, total)
    finally:
        sink.close()
    if not problem and expected is not None and got < expected:
        problem = "the connection was closed before the whole file arrived"
    return _Outcome(got, problem)


def unresolved(url: str, part: _Part) -> Offline:
    """The package host's name does not resolve: one line, and what was received is kept."""
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or url
    kept = f" (the {part.size} bytes received are kept in {part.path})" if part.size else ""
    return Offline(
        f"cannot resolve {host}, the host of {redact(url)}: no network, or no DNS for it{kept}",
        hosts=(host,),
        fix="connect to the network and run the same command again; or build LLVM from source"
        " (--llvm source), or point --llvm-prebuilt-url at a host this machine reaches",
    )


def _describe(exc: Exception) -> str:
    import requests
    import urllib3

    if isinstance(exc, (requests.exceptions.ChunkedEncodingError, urllib3.exceptions.ProtocolError)):
        return "the connection was closed before the whole file arrived"
    if isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        return "timed out"
    return describe_network_error(exc)
