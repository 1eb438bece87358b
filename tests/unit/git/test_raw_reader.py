"""RawReader against a real HTTP server on 127.0.0.1: retries with backoff, 404, errors, size limit."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bootstrap.core.errors import ExitCode, ExternalError
from bootstrap.git.rawfiles import RawReader

SHA = "cf34004b8a67d290a962da166f5aa2fc66751326"


class Script:
    """What the server answers, per path: a list of (status, body) consumed one per request."""

    def __init__(self) -> None:
        self.answers: dict[str, list[tuple[int, bytes]]] = {}
        self.seen: list[tuple[str, float]] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            script.seen.append((self.path, time.monotonic()))
            queue = script.answers.get(self.path, [])
            status, body = queue.pop(0) if len(queue) > 1 else (queue[0] if queue else (404, b"404: Not Found"))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/pytorch/pytorch", script
    httpd.shutdown()
    httpd.server_close()


def test_reads_file_and_404_is_none(server: tuple[str, Script]) -> None:
    base, script = server
    script.answers["/pytorch/pytorch/v2.5.0/pin.txt"] = [(200, (SHA + "\n").encode())]
    reader = RawReader(base, "v2.5.0")
    assert reader.read("pin.txt") == SHA + "\n"
    assert reader.read("missing.txt") is None


def test_retries_with_backoff_on_5xx_then_succeeds(server: tuple[str, Script]) -> None:
    base, script = server
    script.answers["/pytorch/pytorch/main/pin.txt"] = [(503, b"busy"), (502, b"bad gateway"), (200, b"ok")]
    reader = RawReader(base, "main", retries=3, backoff=0.2)
    assert reader.read("pin.txt") == "ok"
    times = [t for path, t in script.seen if path.endswith("pin.txt")]
    assert len(times) == 3
    assert times[1] - times[0] >= 0.19 and times[2] - times[1] >= 0.39  # 0.2 s, then 0.4 s


def test_gives_up_with_a_clear_error(server: tuple[str, Script]) -> None:
    base, script = server
    script.answers["/pytorch/pytorch/main/pin.txt"] = [(503, b"busy")]
    with pytest.raises(ExternalError) as info:
        RawReader(base, "main", retries=2, backoff=0.01).read("pin.txt")
    assert "after 3 attempts: HTTP 503" in info.value.message
    assert info.value.exit_code == ExitCode.EXTERNAL_FAILED
    assert len(script.seen) == 3


def test_forbidden_is_not_retried(server: tuple[str, Script]) -> None:
    base, script = server
    script.answers["/pytorch/pytorch/main/pin.txt"] = [(403, b"rate limited")]
    with pytest.raises(ExternalError, match="HTTP 403"):
        RawReader(base, "main", backoff=0.01).read("pin.txt")
    assert len(script.seen) == 1


def test_oversized_file_is_refused(server: tuple[str, Script]) -> None:
    base, script = server
    script.answers["/pytorch/pytorch/main/big.txt"] = [(200, b"x" * ((1 << 20) + 10))]
    with pytest.raises(ExternalError, match="larger than 1 MiB"):
        RawReader(base, "main").read("big.txt")


def test_connection_refused_is_offline(server: tuple[str, Script]) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ExternalError, match="offline"):
        RawReader(f"http://127.0.0.1:{port}/x/y", "main", retries=1, backoff=0.01).read("pin.txt")
