"""Benchmark: fetching one pinned commit (LLVM's checkout), a blobless partial clone (Triton's
checkout: every commit and tree, the pin's files) and a full clone, and moving each checkout to a
newer pin.

A repository with a long history of real content is generated with `git fast-import`: 3,000
commits over a working set of 60 files, each commit editing or rewriting one file with text taken
from Python's standard library sources. It is served by a real `git daemon` on 127.0.0.1 behind
a small TCP relay that counts every byte sent to the client, so the figures are bytes actually
transferred, not sizes on disk.

    python tests/perf/bench_fetch.py        # prints the rows
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import ensure_checkout

COMMITS = 3000
WORKING_SET = 60
BYTES_GOAL = 0.05  # a single-commit fetch moves at most 5% of a full clone's bytes
BLOBLESS_GOAL = 0.5  # a blobless clone (history without old file contents) at most half a full clone's

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def _corpus() -> list[bytes]:
    """Real text: the standard library's Python sources, in a fixed order."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.glob("*.py") if p.is_file())
    texts = [p.read_bytes() for p in files]
    texts = [t for t in texts if 2_000 <= len(t) <= 200_000]
    if len(texts) < 50:
        raise RuntimeError(f"too little source text under {stdlib} to build the benchmark repository")
    return texts


def generate_repository(path: Path, commits: int = COMMITS) -> str:
    """A bare repository with `commits` commits of real content; returns the tip commit."""
    corpus = _corpus()
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None
    out = proc.stdin
    files = {f"src/module_{i:02d}.py": corpus[i % len(corpus)] for i in range(WORKING_SET)}
    when = 1_700_000_000
    cursor = WORKING_SET
    for n in range(commits):
        name = f"src/module_{n % WORKING_SET:02d}.py"
        if n < 1 or n % 3 == 0:
            # A rewrite: the file gets another real source file's text (new content in history).
            files[name] = corpus[cursor % len(corpus)]
            cursor += 1
        else:
            # An edit: a few lines of another real file spliced in (what most commits look like).
            lines = files[name].split(b"\n")
            donor = corpus[(cursor + n) % len(corpus)].split(b"\n")
            at = (n * 7919) % max(1, len(lines))
            start = (n * 104729) % max(1, len(donor))
            files[name] = b"\n".join(lines[:at] + donor[start : start + 12] + lines[at + 6 :])
        message = f"Change {n}: update {name}\n".encode()
        out.write(b"commit refs/heads/main\n")
        out.write(f"committer Bench <bench@example.invalid> {when + n * 60} +0000\n".encode())
        out.write(b"data %d\n%s\n" % (len(message), message))
        targets = files.items() if n == 0 else [(name, files[name])]
        for target, data in targets:
            out.write(f"M 100644 inline {target}\n".encode())
            out.write(b"data %d\n%s\n" % (len(data), data))
    out.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    # Pack as a server would have it (deltas across history), so both sides are served fairly.
    subprocess.run(["git", "-C", str(path), "repack", "-adq", "--depth=50", "--window=10"], check=True, env=ENV)
    subprocess.run(["git", "-C", str(path), "config", "uploadpack.allowAnySHA1InWant", "true"], check=True, env=ENV)
    subprocess.run(["git", "-C", str(path), "config", "uploadpack.allowFilter", "true"], check=True, env=ENV)
    (path / "git-daemon-export-ok").touch()
    return subprocess.run(
        ["git", "-C", str(path), "rev-parse", "main"], check=True, env=ENV, capture_output=True, text=True
    ).stdout.strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CountingRelay:
    """TCP relay 127.0.0.1:port -> target port, counting bytes sent to clients."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.bytes_to_client = 0
        self._lock = threading.Lock()
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(16)
        self.port = int(self._server.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self) -> int:
        with self._lock:
            count, self.bytes_to_client = self.bytes_to_client, 0
        return count

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, to_client: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if to_client:
                    with self._lock:
                        self.bytes_to_client += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (dst,):
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

    def close(self) -> None:
        self._server.close()


def _start_daemon(base: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            f"--base-path={base}",
            "--export-all",
            "--reuseaddr",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("git daemon did not start")


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def measure(root: Path) -> dict[str, float]:
    base = root / "served"
    base.mkdir()
    started = time.monotonic()
    tip = generate_repository(base / "history.git")
    generated = time.monotonic() - started
    # The pin is an older commit, as PyTorch's pins usually are (not the tip of main).
    pin = subprocess.run(
        ["git", "-C", str(base / "history.git"), "rev-parse", "main~500"],
        check=True,
        env=ENV,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert pin != tip
    daemon, port = _start_daemon(base)
    relay = CountingRelay(port)
    url = f"git://127.0.0.1:{relay.port}/history.git"
    try:
        started = time.monotonic()
        ensure_checkout("bench", url, pin, root / "pinned", Runner(silent=True))
        pinned_s = time.monotonic() - started
        pinned_bytes = relay.reset()

        started = time.monotonic()
        ensure_checkout("triton", url, pin, root / "blobless", Runner(silent=True), history="blobless")
        blobless_s = time.monotonic() - started
        blobless_bytes = relay.reset()

        started = time.monotonic()
        subprocess.run(["git", "clone", "-q", url, str(root / "full")], check=True, env=ENV)
        full_s = time.monotonic() - started
        full_bytes = relay.reset()

        # A newer pin: the checkouts move to main's tip (500 commits later).
        started = time.monotonic()
        ensure_checkout("bench", url, tip, root / "pinned", Runner(silent=True))
        pinned_update_s, pinned_update_bytes = time.monotonic() - started, relay.reset()
        started = time.monotonic()
        ensure_checkout("triton", url, tip, root / "blobless", Runner(silent=True), history="blobless")
        blobless_update_s, blobless_update_bytes = time.monotonic() - started, relay.reset()
    finally:
        relay.close()
        daemon.terminate()
        daemon.wait()
    return {
        "pinned_bytes": pinned_bytes,
        "full_bytes": full_bytes,
        "blobless_bytes": blobless_bytes,
        "pinned_s": pinned_s,
        "full_s": full_s,
        "blobless_s": blobless_s,
        "pinned_update_bytes": pinned_update_bytes,
        "blobless_update_bytes": blobless_update_bytes,
        "pinned_update_s": pinned_update_s,
        "blobless_update_s": blobless_update_s,
        "generate_s": generated,
    }


def run() -> list[dict[str, object]]:
    root = Path(tempfile.mkdtemp(prefix="tritondev-bench-fetch-"))
    try:
        m = measure(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ratio = m["pinned_bytes"] / m["full_bytes"]
    return [
        {
            "metric": f"fetch one pinned commit vs full clone ({COMMITS} commits): bytes",
            "measured": f"{ratio:.1%} ({_mib(int(m['pinned_bytes']))} vs {_mib(int(m['full_bytes']))})",
            "goal": f"<= {BYTES_GOAL:.0%}",
            "pass": ratio <= BYTES_GOAL,
        },
        {
            "metric": f"fetch one pinned commit vs full clone ({COMMITS} commits): time",
            "measured": f"{m['pinned_s']:.2f} s vs {m['full_s']:.2f} s",
            "goal": "faster",
            "pass": m["pinned_s"] < m["full_s"],
        },
        *blobless_rows(m),
    ]


def blobless_rows(m: dict[str, float]) -> list[dict[str, object]]:
    """Triton's checkout: history for log, bisect and rebase, against the depth-1 fetch it replaced."""
    ratio = m["blobless_bytes"] / m["full_bytes"]
    return [
        {
            "metric": f"blobless clone (all {COMMITS} commits and trees, the pin's files) vs depth 1 vs full: bytes",
            "measured": f"{_mib(int(m['blobless_bytes']))} vs {_mib(int(m['pinned_bytes']))} vs"
            f" {_mib(int(m['full_bytes']))} ({ratio:.1%} of a full clone)",
            "goal": f"<= {BLOBLESS_GOAL:.0%} of a full clone",
            "pass": ratio <= BLOBLESS_GOAL,
        },
        {
            "metric": "blobless clone vs depth 1 vs full: time",
            "measured": f"{m['blobless_s']:.2f} s vs {m['pinned_s']:.2f} s vs {m['full_s']:.2f} s",
            "goal": "faster than a full clone",
            "pass": m["blobless_s"] < m["full_s"],
        },
        {
            "metric": "move to a pin 500 commits newer: blobless vs depth 1 (bytes, time)",
            "measured": f"{_mib(int(m['blobless_update_bytes']))} in {m['blobless_update_s']:.2f} s vs"
            f" {_mib(int(m['pinned_update_bytes']))} in {m['pinned_update_s']:.2f} s",
            "goal": "at most twice depth 1's bytes (the new commits and trees come too)",
            "pass": m["blobless_update_bytes"] <= 2 * m["pinned_update_bytes"],
        },
    ]


if __name__ == "__main__":
    rows = run()
    for row in rows:
        print(f"{row['metric']}: {row['measured']} (goal {row['goal']}) {'ok' if row['pass'] else 'FAILED'}")
    sys.exit(0 if all(r["pass"] for r in rows) else 1)
