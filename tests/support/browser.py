"""A real headless Chromium for tests, driven over the Chrome DevTools Protocol on a pipe.

Chromium's `--remote-debugging-pipe` reads protocol messages (JSON, each ended by a NUL byte) on its file
descriptor 3 and writes on 4: no port, no websocket, no package beyond the standard library. The browser
runs with a fresh profile and the flags that keep it off the network (this machine's network is closed,
and a page under test must need none): no background networking, no component updates, no sync. Every
console message, uncaught exception and network request the page makes is recorded, so a test can fail
on a console error or on any request that is not the page's own file.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--mute-audio",
    "--remote-debugging-pipe",
)


def chromium() -> str | None:
    """The Chromium on PATH (Debian's `chromium` package), or None."""
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class BrowserRestarted(UserWarning):
    """A start gave no answer and a fresh browser was started: shown in the run's warnings summary (not an
    error, pyproject's filterwarnings says so), with what Chromium wrote on its stderr."""


@dataclass
class Page:
    """What one page did: console messages, uncaught exceptions, requests (URLs)."""

    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    loaded: bool = False

    def errors(self) -> list[str]:
        said = [
            " ".join(str(a.get("value", a.get("description", ""))) for a in m.get("args", []))
            for m in self.console
            if m.get("type") in ("error", "assert")
        ]
        return said + self.exceptions


class Browser:
    """One headless Chromium with one tab; use as a context manager."""

    def __init__(self, width: int = 1400, height: int = 900) -> None:
        exe = chromium()
        if exe is None:
            raise BrowserError("no chromium on PATH")
        self.profile = tempfile.mkdtemp(prefix="tritondev-chromium-")
        # Chromium's own messages, in an unnamed temporary file: a start that gives no answer says why.
        self._stderr = tempfile.TemporaryFile(prefix="tritondev-chromium-stderr-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # The protocol's fixed descriptors are 3 (the browser reads) and 4 (it writes). The child's ends
        # are copied above them first, so that moving one there cannot overwrite the other whatever
        # numbers the pipes got, and are moved in the child. Nothing else is inherited (this process's
        # descriptors are not inheritable), so none has to be open at 3 or 4 here: `pass_fds=(3, 4)`
        # made Popen fail with EBADF when they were not.
        child_reads = fcntl.fcntl(to_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        child_writes = fcntl.fcntl(from_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser)
        os.close(from_browser)

        def descriptors() -> None:  # in the child; dup2's copies are inheritable
            os.dup2(child_reads, 3)
            os.dup2(child_writes, 4)

        try:
            self.proc = subprocess.Popen(
                [exe, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
                close_fds=False,
                preexec_fn=descriptors,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
            )
        finally:
            os.close(child_reads)
            os.close(child_writes)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self.page = Page()
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        except BrowserError as exc:
            said = self.stderr_tail()
            self.close()  # a browser that never answered is not left running
            raise BrowserError(f"{exc}; chromium's stderr ended: {said!r}") from None
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Page", "Network", "Log"):
            self.call(f"{domain}.enable", session=True)
        # No request may leave the machine: the browser is offline as far as the page can tell.
        self.call(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            session=True,
        )

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stderr_tail(self, size: int = 2000) -> str:
        """The last `size` bytes Chromium has written on its stderr."""
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - size))
        return self._stderr.read().decode(errors="replace")

    def close(self) -> None:
        try:
            self._send("Browser.close", {}, None)
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        for fd in (self._write, self._read):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- the protocol --------------------------------------------------------------------------------------
    def _send(self, method: str, params: dict[str, Any], session: str | None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self, deadline: float) -> dict[str, Any] | None:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                return None
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium closed the pipe (exit {self.proc.poll()})")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        if "method" in message:
            self._record(message)
        return message

    def _record(self, event: dict[str, Any]) -> None:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.page.console.append(params)
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.page.exceptions.append(str(details.get("exception", {}).get("description") or details.get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.page.exceptions.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        elif method == "Network.requestWillBeSent":
            self.page.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Page.loadEventFired":
            self.page.loaded = True

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: bool = False, timeout: float = 30
    ) -> dict[str, Any]:
        wanted = self._send(method, params or {}, self.session if session else None)
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message is None:
                raise BrowserError(f"{method}: no answer in {timeout} s")
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    # -- what tests use ------------------------------------------------------------------------------------
    def open(
        self, path: Path, ready: str = "document.body && document.body.dataset.ready === '1'", timeout: float = 30
    ) -> Page:
        """Load `path` as a file:// URL and wait until `ready` (a JS expression) holds or an error shows."""
        self.page = Page()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.page.loaded and (self.evaluate(ready) or self.page.errors()):
                return self.page
            self._receive(min(deadline, time.monotonic() + 0.05))
        raise BrowserError(f"{path} was not ready in {timeout} s; errors: {self.page.errors()}")

    def evaluate(self, expression: str) -> Any:
        """The value of a JS expression in the page (awaited when it is a promise)."""
        answer = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=True
        )
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails'].get('exception', {}).get('description')}")
        return answer.get("result", {}).get("value")

    def click(self, selector: str) -> None:
        found = self.evaluate(
            f"(() => {{ const n = document.querySelector({json.dumps(selector)}); "
            "if (!n) return false; n.click(); return true; })()"
        )
        if not found:
            raise BrowserError(f"nothing matches {selector}")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        path.write_bytes(base64.b64decode(data))
