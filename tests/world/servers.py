"""Real local servers over the world's repositories: a git daemon and a raw-file HTTP server."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.world.world import GITHUB_NAMES, World


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    """Until the daemon listens; the deadline only guards against a hang (a loaded machine is slow)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"git daemon exited with status {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"git daemon did not listen on port {port} within {timeout}s")


@dataclass
class GitDaemon:
    """`git daemon` serving <world.git_root>/<name>.git as git://127.0.0.1:<port>/<name>.git."""

    base_path: Path
    port: int
    proc: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"git://127.0.0.1:{self.port}"

    def url(self, name: str) -> str:
        return f"{self.base_url}/{name}.git"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_git_daemon(base_path: Path) -> GitDaemon:
    for _attempt in range(5):
        port = free_port()
        proc = subprocess.Popen(
            [
                "git",
                "daemon",
                "--export-all",
                f"--base-path={base_path}",
                "--reuseaddr",
                "--listen=127.0.0.1",
                f"--port={port}",
                "--informative-errors",
                str(base_path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_port(port, proc)
        except RuntimeError:
            proc.kill()
            proc.wait()
            continue  # the port was taken between free_port() and bind: try another
        return GitDaemon(base_path, port, proc)
    raise RuntimeError("could not start git daemon")


@contextlib.contextmanager
def git_daemon_for(world: World) -> Iterator[GitDaemon]:
    daemon = start_git_daemon(world.git_root)
    try:
        yield daemon
    finally:
        daemon.stop()


# ---------------------------------------------------------------------------------------------


class QuietHttpServer(ThreadingHTTPServer):
    """A threading HTTP server that says nothing when a client drops its connection: the tests kill
    downloads and cut bodies short on purpose, and socketserver would print a traceback on the run's
    stderr for each. Any other error of a handler is printed as before."""

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # reset, aborted, broken pipe
            return
        super().handle_error(request, client_address)


class LocalHttpServer:
    """The start and stop every HTTP server of the world shares: `handler` on 127.0.0.1 at a free port,
    served by a daemon thread (threads per request, daemon too, so a hung client cannot block the end).
    A base of the servers' dataclasses, not one itself, so that their own fields come first."""

    port: int = 0  # known once serve() has bound it
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = QuietHttpServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


# ---------------------------------------------------------------------------------------------


@dataclass
class RawServer(LocalHttpServer):
    """Serves /<owner>/<repo>/<ref>/<path> like raw.githubusercontent.com, from the world's bare repos.

    The ref may contain slashes (release/2.5) or be a full sha. Missing repo, ref or path: 404 with
    the body "404: Not Found", as GitHub answers. Every request path is appended to `requests`.
    """

    world: World
    requests: list[str] = field(default_factory=list)

    def url(self, ref: str, path: str, repo: str = "pytorch/pytorch") -> str:
        return f"{self.base_url}/{repo}/{ref}/{path}"

    def lookup(self, url_path: str) -> bytes | None:
        parts = [p for p in unquote(urlsplit(url_path).path).split("/") if p]
        if len(parts) < 4:
            return None
        name = GITHUB_NAMES.get(f"{parts[0]}/{parts[1]}")
        if name is None:
            return None
        bare = self.world.bare[name]
        rest = parts[2:]
        # Longest ref first: "release/2.5/.ci/..." must resolve to the branch release/2.5.
        for i in range(len(rest) - 1, 0, -1):
            ref, path = "/".join(rest[:i]), "/".join(rest[i:])
            ok = subprocess.run(
                ["git", "rev-parse", "--verify", "-q", f"{ref}^{{commit}}"],
                cwd=bare,
                capture_output=True,
                check=False,
            )
            if ok.returncode != 0:
                continue
            blob = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=bare, capture_output=True, check=False)
            return blob.stdout if blob.returncode == 0 else None
        return None

    def start(self) -> RawServer:
        raw = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                raw.requests.append(self.path)
                body = raw.lookup(self.path)
                status = 200 if body is not None else 404
                if body is None:
                    body = b"404: Not Found"
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.serve(Handler)
        return self


# ---------------------------------------------------------------------------------------------


@dataclass
class GitHttpServer(LocalHttpServer):
    """Smart-HTTP git hosting (`git http-backend` behind a local HTTP server), like https://github.com/<o>/<r>.

    `url("triton")` → http://127.0.0.1:<port>/triton.git; fetch by sha works as over git://.
    Every request path (with query) is appended to `requests`.
    """

    project_root: Path
    requests: list[str] = field(default_factory=list)

    def url(self, name: str) -> str:
        return f"{self.base_url}/{name}.git"

    def start(self) -> GitHttpServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def _backend(self) -> None:
                outer.requests.append(self.path)
                split = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                env = {
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "GIT_PROJECT_ROOT": str(outer.project_root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "GIT_CONFIG_NOSYSTEM": "1",
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": unquote(split.path),
                    "QUERY_STRING": split.query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "REMOTE_ADDR": self.client_address[0],
                    "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                    "HTTP_GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                    "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                }
                proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False)
                # CGI output: headers, a blank line, the body.
                head, sep, payload = proc.stdout.partition(b"\r\n\r\n")
                if not sep:
                    head, sep, payload = proc.stdout.partition(b"\n\n")
                status, headers = 200, []
                for line in head.decode("latin-1").splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _backend
            do_POST = _backend

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.serve(Handler)
        return self
