"""A real redis-server on 127.0.0.1 for the ccache remote tests and benchmark (no persistence)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

USER, PASSWORD = "user", "s3cret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """redis-server with one ACL user (USER/PASSWORD) and the default user off, so that a URL
    without the password is refused, as a team's server would.

    requirepass: the classic set-up instead (`requirepass PASSWORD`, the default user and no ACL
    user), whose usual URL is redis://:PASSWORD@HOST:PORT with an empty user.
    """

    def __init__(self, folder: Path, *, unix_socket: bool = False, requirepass: bool = False) -> None:
        self.folder = folder
        self.requirepass = requirepass
        self.port = free_port()
        # Unix socket paths are limited to ~107 bytes: keep it short, under /tmp.
        self.socket = Path(f"/tmp/tritondev-redis-{self.port}.sock") if unix_socket else None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.requirepass:
            return f"redis://:{PASSWORD}@127.0.0.1:{self.port}"
        return f"redis://{USER}:{PASSWORD}@127.0.0.1:{self.port}"

    def url_with(self, userinfo: str) -> str:
        return f"redis://{userinfo}@127.0.0.1:{self.port}"

    def start(self) -> RedisServer:
        exe = shutil.which("redis-server")
        if exe is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.folder.mkdir(parents=True, exist_ok=True)
        # The server holds its own copy of the log's descriptor: ours closes once it started.
        with (self.folder / "redis.log").open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    exe,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.folder),
                    *self._auth_options(),
                    *(["--unixsocket", str(self.socket), "--unixsocketperm", "700"] if self.socket else []),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 300  # a guard against a hang, not a speed goal
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited: {(self.folder / 'redis.log').read_text()[-2000:]}")
            try:
                if self.command("PING") == b"+PONG":
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer within 300 s")

    def _auth_options(self) -> list[str]:
        if self.requirepass:
            return ["--requirepass", PASSWORD]
        return ["--user", USER, "on", f">{PASSWORD}", "~*", "&*", "+@all", "--user", "default", "off"]

    def command(self, *args: str) -> bytes:
        """One command, authenticated; the first line of the reply."""
        auth = ("AUTH", PASSWORD) if self.requirepass else ("AUTH", USER, PASSWORD)
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            reader = sock.makefile("rb")
            for cmd in (auth, args):
                payload = b"*%d\r\n" % len(cmd) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode()) for a in cmd)
                sock.sendall(payload)
                line = reader.readline().rstrip(b"\r\n")
            return line

    def keys(self) -> int:
        return int(self.command("DBSIZE")[1:])

    def stop(self) -> None:
        """SHUTDOWN NOSAVE, as an operator stopping the server would; kill as a fallback."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self.command("SHUTDOWN", "NOSAVE")
        except OSError:
            pass  # the server closes the connection as it goes
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
