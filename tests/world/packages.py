"""Prebuilt LLVM packages of the test world, shaped like Triton's, and a real HTTP server for them.

- `package_llvm(build, out_dir, name)`: the install of a mini LLVM build into `<name>/`, exactly the
  components Triton's llvm-build workflow installs (`ninja install-distribution` of its
  LLVM_DISTRIBUTION_COMPONENTS, .github/workflows/llvm-build.yml @ 5838701f l.17, 137-153: headers,
  libraries and CMake packages of llvm, mlir and lld, clang (bin/clang, bin/clang++) and its resource
  headers, FileCheck, not, split-file, llc, opt, llvm-config, mlir-tblgen, mlir-translate), and a
  `<name>.tar.gz` holding that one top folder (`tar czf <dir>.tar.gz <dir>`), with its real sha256.
- `commit_llvm_info(world, label, info)`: a Triton commit (on a branch of its own, in a private
  world) whose cmake/llvm-info.json is `info`: the sha256 and build number of a package made here.
- `PackageServer(root)`: serves the files under `root` at `/llvm-builds/<name>` with HTTP/1.1,
  `Range: bytes=N-` (206, or 416 past the end) and sendfile; faults on demand: drop the connection
  after N bytes (once per file), ignore Range, answer a status (404, 409) instead of the file.
  Every request is recorded with its Range and the body bytes sent.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
import subprocess
import tarfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.world.gitrepo import Git
from tests.world.servers import LocalHttpServer
from tests.world.world import World

PREFIX = "/llvm-builds/"


@dataclass(frozen=True)
class BuiltPackage:
    name: str  # llvm-<hash8>-<suffix>[-<n>]
    path: Path  # <out_dir>/<name>.tar.gz
    sha256: str

    @property
    def archive(self) -> str:
        return self.path.name


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


# LLVM_DISTRIBUTION_COMPONENTS of .github/workflows/llvm-build.yml @ 5838701f l.17.
DISTRIBUTION_COMPONENTS = (
    "llvm-headers",
    "llvm-libraries",
    "cmake-exports",
    "mlir-headers",
    "mlir-libraries",
    "mlir-cmake-exports",
    "lld-headers",
    "lld-libraries",
    "lld-cmake-exports",
    "clang",
    "clang-resource-headers",
    "FileCheck",
    "not",
    "split-file",
    "llc",
    "opt",
    "llvm-config",
    "mlir-tblgen",
    "mlir-translate",
)


def install_tree(build: Path, prefix: Path) -> Path:
    """The distribution components of an LLVM build installed into `prefix` (what `ninja
    install-distribution` installs): the tree Triton's packages hold."""
    for component in DISTRIBUTION_COMPONENTS:
        proc = subprocess.run(
            ["cmake", "--install", str(build), "--prefix", str(prefix), "--component", component],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise AssertionError(
                f"cmake --install --component {component} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
            )
    return prefix


def tar_folder(folder: Path, archive: Path, extra: list[tarfile.TarInfo] | None = None) -> Path:
    """`<archive>` (.tar.gz) holding `folder` as its one top folder, plus `extra` members (hostile ones)."""
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        tar.add(folder, arcname=folder.name)
        for member in extra or []:
            tar.addfile(member, None)
    return archive


def package_llvm(build: Path, out_dir: Path, name: str, extra: list[tarfile.TarInfo] | None = None) -> BuiltPackage:
    """A package of the LLVM build at `build`, named `name`, in `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    staging = out_dir / f".{name}.staging"
    shutil.rmtree(staging, ignore_errors=True)
    tree = install_tree(build, staging / name)
    archive = tar_folder(tree, out_dir / f"{name}.tar.gz", extra)
    shutil.rmtree(staging)
    return BuiltPackage(name, archive, sha256_of(archive))


def commit_llvm_info(world: World, label: str, info: dict[str, object], branch: str = "prebuilt-llvm") -> str:
    """A commit on top of the Triton commit `label` whose cmake/llvm-info.json is `info`; in the work and
    the bare repositories of `world` (a private world: the session's is read-only)."""
    work = world.work["triton"]
    git = Git(work, [900 + len(branch)])
    git("checkout", "-q", "-B", branch, world.triton_commits[label])
    (work / "cmake" / "llvm-info.json").write_text(json.dumps(info, indent=2) + "\n")
    sha = git.commit(f"Pin the prebuilt LLVM package, build {info.get('build_number')}")
    git("push", "-q", "--force", str(world.bare["triton"]), f"{branch}:refs/heads/{branch}")
    git("checkout", "-q", "main")
    return sha


@dataclass
class Served:
    path: str
    range: str | None
    status: int
    sent: int  # body bytes written to the socket
    method: str = "GET"


@dataclass
class PackageServer(LocalHttpServer):
    """The files under `root`, at http://127.0.0.1:<port>/llvm-builds/<name>."""

    root: Path
    requests: list[Served] = field(default_factory=list)  # read them through served()
    drop_after: dict[str, int] = field(default_factory=dict)  # name -> bytes sent before the connection drops
    ignore_range: bool = False
    status: dict[str, int] = field(default_factory=dict)  # name -> status answered instead of the file
    _idle: threading.Condition = field(default_factory=threading.Condition)
    _active: int = 0

    @property
    def base_url(self) -> str:
        return f"{super().base_url}{PREFIX.rstrip('/')}"

    def url(self, name: str) -> str:
        return f"{self.base_url}/{name}"

    def served(self, timeout: float = 10.0) -> list[Served]:
        """The requests so far, once no answer is still being written (a client that got its last byte
        may be faster than the server thread that records it)."""
        with self._idle:
            self._idle.wait_for(lambda: self._active == 0, timeout)
            return list(self.requests)

    def sent(self, name: str) -> int:
        return sum(r.sent for r in self.served() if r.path.endswith(f"/{name}"))

    def _begin(self) -> None:
        with self._idle:
            self._active += 1

    def _record(self, served: Served | None) -> None:
        with self._idle:
            if served is not None:
                self.requests.append(served)
            self._active -= 1
            self._idle.notify_all()

    def start(self) -> PackageServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_HEAD(self) -> None:
                self._counted(body=False)

            def do_GET(self) -> None:
                self._counted(body=True)

            def _counted(self, body: bool) -> None:
                outer._begin()
                served = None
                try:
                    served = self._answer(body)
                    if not body:
                        served.method = "HEAD"
                finally:
                    outer._record(served)

            def _answer(self, body: bool) -> Served:
                path = unquote(urlsplit(self.path).path)
                name = path[len(PREFIX) :] if path.startswith(PREFIX) else ""
                wanted = self.headers.get("Range")
                file = outer.root / name if name and "/" not in name else None
                if name in outer.status or file is None or not file.is_file():
                    code = outer.status.get(name, 404)
                    message = b"PublicAccessNotPermitted" if code == 409 else b"BlobNotFound"
                    self._head(code, len(message), "application/xml")
                    self.wfile.write(message if body else b"")
                    return Served(path, wanted, code, 0)
                size = file.stat().st_size
                first = 0
                match = re.match(r"^bytes=(\d+)-$", wanted or "")
                if match and not outer.ignore_range:
                    first = int(match.group(1))
                    if first >= size:
                        self._head(416, 0, extra={"Content-Range": f"bytes */{size}"})
                        return Served(path, wanted, 416, 0)
                    self._head(206, size - first, extra={"Content-Range": f"bytes {first}-{size - 1}/{size}"})
                else:
                    self._head(200, size)
                sent = self._send(file, first, size - first, outer.drop_after.pop(name, None)) if body else 0
                return Served(path, wanted, 206 if first else 200, sent)

            def _head(
                self,
                code: int,
                length: int,
                kind: str = "application/octet-stream",
                extra: dict[str, str] | None = None,
            ) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(length))
                self.send_header("Accept-Ranges", "none" if outer.ignore_range else "bytes")
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()

            def _send(self, file: Path, offset: int, count: int, drop: int | None) -> int:
                self.wfile.flush()
                with file.open("rb") as fh:
                    if drop is not None:
                        sent: int = self.connection.sendfile(fh, offset, min(drop, count))
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return sent
                    whole: int = self.connection.sendfile(fh, offset, count)
                    return whole

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.serve(Handler)
        return self


def main(argv: list[str] | None = None) -> None:
    """`python -m tests.world.packages FOLDER`: serve FOLDER in a process of its own (benchmarks measure a
    client that must not share the server's interpreter); prints the base URL, serves until killed."""
    import sys
    import time

    folder = Path((argv if argv is not None else sys.argv[1:])[0])
    server = PackageServer(folder).start()
    print(server.base_url, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
