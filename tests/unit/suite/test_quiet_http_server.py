"""The world's HTTP servers say nothing when a client drops its connection (tests cut downloads short
on purpose), and still print a handler's own error."""

from __future__ import annotations

import contextlib
import io
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler

from tests.world.servers import LocalHttpServer, QuietHttpServer


class _Failing(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        raise ValueError("a bug in a handler")

    def log_message(self, format: str, *args: object) -> None:
        pass


def _stderr_after(send: bytes, reset: bool) -> str:
    """What the server printed once it had handled the error of one connection."""
    said, handled = io.StringIO(), threading.Event()
    server = LocalHttpServer()
    with contextlib.redirect_stderr(said):
        server.serve(_Failing)
        running = server._server
        assert isinstance(running, QuietHttpServer)

        def handle_error(request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> None:
            QuietHttpServer.handle_error(running, request, client_address)
            handled.set()

        running.handle_error = handle_error  # type: ignore[method-assign]
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
                if reset:  # closed with an RST, as a killed download closes
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                client.sendall(send)
            assert handled.wait(10)
        finally:
            server.stop()
    return said.getvalue()


def test_a_reset_connection_prints_nothing() -> None:
    assert _stderr_after(b"GET", reset=True) == ""


def test_a_handlers_own_error_is_still_printed() -> None:
    assert "ValueError: a bug in a handler" in _stderr_after(b"GET / HTTP/1.0\r\n\r\n", reset=False)
