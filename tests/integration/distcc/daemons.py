"""Real distccd daemons on 127.0.0.1 for the distcc tests and benchmark.

Each daemon listens on a port of its own (`--listen 127.0.0.1 --allow 127.0.0.1`), keeps a log at
info level (one `COMPILE_OK` job summary per compile it ran) and serves its statistics over HTTP
(`--stats`: `dcc_compile_ok` and friends), which is how a test proves that compiles went to it.

distccd started as root gives up root for the `distccd` (or `nobody`) user, so its folder is made
readable and its log file writable by anyone; it lives under /tmp (a pytest folder is private).

"Another compiler" is another host's compiler, as distccd itself can be told to use one:
DISTCC_CMDLIST maps the compiler name a client sends (its last path component) to a program of the
server's choosing, here a link named like this machine's compiler to a different one.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class DistccDaemon:
    def __init__(
        self,
        *,
        slots: int = 2,
        jobs: int | None = None,
        other_compilers: dict[str, str] | None = None,
        allow: str = "127.0.0.1",
    ) -> None:
        """slots: the /LIMIT of its host token; jobs: distccd's --jobs (default: slots);
        other_compilers: compiler name -> program this host runs instead (DISTCC_CMDLIST)."""
        self.slots = slots
        self.jobs = jobs or slots
        self.other_compilers = dict(other_compilers or {})
        self.allow = allow
        self.port = free_port()
        self.stats_port = free_port()
        # In /tmp itself: distccd run as root drops to the distcc user, who must reach its log and
        # command list; a private TMPDIR (mode 0700, as each benchmark gets) would hide them.
        self.folder = Path(tempfile.mkdtemp(prefix=f"tritondev-distccd-{self.port}-", dir="/tmp"))
        self.folder.chmod(0o755)
        self.log = self.folder / "distccd.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def token(self) -> str:
        """This host in DISTCC_HOSTS."""
        return f"127.0.0.1:{self.port}/{self.slots}"

    def _environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DISTCC_")}
        # distccd's user (it drops root) needs a TMPDIR it may write: one of this daemon's, world-writable
        # and sticky like /tmp, so that what a daemon stopped mid-compile leaves goes with its folder.
        scratch = self.folder / "tmp"
        scratch.mkdir()
        scratch.chmod(0o1777)
        env["TMPDIR"] = str(scratch)
        if self.other_compilers:
            links = self.folder / "compilers"
            links.mkdir()
            links.chmod(0o755)
            for name, program in self.other_compilers.items():
                (links / name).symlink_to(program)
            cmdlist = self.folder / "cmdlist"
            cmdlist.write_text("".join(f"{links / name}\n" for name in self.other_compilers))
            cmdlist.chmod(0o644)
            env["DISTCC_CMDLIST"] = str(cmdlist)
        return env

    def start(self) -> DistccDaemon:
        exe = shutil.which("distccd")
        if exe is None:
            raise RuntimeError("distccd is not installed (apt-get install distcc)")
        self.log.touch()
        self.log.chmod(0o666)
        self.proc = subprocess.Popen(
            [
                exe,
                "--daemon",
                "--no-detach",
                "--listen",
                "127.0.0.1",
                "--allow",
                self.allow,
                "--port",
                str(self.port),
                "--jobs",
                str(self.jobs),
                "--stats",
                "--stats-port",
                str(self.stats_port),
                "--log-file",
                str(self.log),
                "--log-level",
                "info",
            ],
            env=self._environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: stop() ends the daemon and every child it forked
        )
        deadline = time.monotonic() + 300  # a guard against a hang, not a speed goal
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"distccd exited: {self.log.read_text()[-2000:]}")
            try:  # listening (a daemon that does not allow this machine still accepts, then hangs up)
                socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.remove()  # not left running behind a failed test
        raise RuntimeError("distccd did not answer within 300 s")

    def stats(self) -> dict[str, str]:
        """distccd's own statistics (its --stats HTTP server): name -> value.

        The request is not sent: distccd answers every connection at once. It reads the request only
        once, without waiting (stats.c, dcc_service_stats_request), so a request that arrives after
        that read is left unread when it closes, and the kernel resets the connection, losing the
        page (seen as ConnectionResetError about once in a few hundred reads)."""
        chunks: list[bytes] = []
        with socket.create_connection(("127.0.0.1", self.stats_port), timeout=60) as connection:
            while chunk := connection.recv(65536):
                chunks.append(chunk)
        text = b"".join(chunks).decode("utf-8", "replace")
        values: dict[str, str] = {}
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name.startswith("dcc_"):
                values[name] = value.strip()
        return values

    def compiles(self) -> int:
        """Compiles this daemon ran to the end (dcc_compile_ok of its statistics)."""
        return int(self.stats()["dcc_compile_ok"])

    def compiles_logged(self) -> int:
        """Compiles its log says it ran (read from the file: no request to a daemon that is busy)."""
        return sum("COMPILE_OK" in line for line in self.jobs_logged())

    def jobs_logged(self) -> list[str]:
        """The job summaries of its log: one line per request, COMPILE_OK for a compile it ran."""
        return [line for line in self.log.read_text(errors="replace").splitlines() if "(dcc_job_summary)" in line]

    def stop(self) -> None:
        """End the daemon and the children it forked (its process group)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
