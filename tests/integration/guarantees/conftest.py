"""Shared parts of the guarantee suites: real wheels, a real target venv, small filesystems, servers.

Everything here is real: wheels built by pip, venvs made by `python -m venv`, tmpfs filesystems
mounted by the kernel (full and read-only disks), HTTP servers on 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.venvs import fresh_venv, python_of
from tests.support.wheels import build_wheels, one_wheel, project
from tests.world.servers import QuietHttpServer
from tests.world.world import World

if TYPE_CHECKING:
    from tests.integration.guarantees.scene import Scene  # scene.py imports this module

REPO = Path(__file__).resolve().parents[3]
# Every scratch path of these suites has spaces and non-ASCII letters in it: users' home folders do.
ODD = "dir with spaces é ü"


@dataclass(frozen=True)
class Wheels:
    triton: Path  # a distribution `triton` that installs the `triton/` package
    pytorch_triton: Path  # another name for the same `triton/` package, as PyTorch's wheels have
    unrelated: Path  # a distribution purge must never touch

    def all(self) -> list[str]:
        return [str(self.triton), str(self.pytorch_triton), str(self.unrelated)]


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Wheels:
    root = tmp_path_factory.mktemp("guarantee-wheels")
    projects = [
        project(
            root / "triton",
            "triton",
            "3.5.0",
            {
                "triton/__init__.py": "__version__ = '3.5.0'\nDIST = 'triton'\n",
                "triton/language/__init__.py": "A = 1\n",
            },
        ),
        project(
            root / "pytorch-triton",
            "pytorch-triton",
            "3.5.0+git7416ffcb",
            {
                "triton/__init__.py": "__version__ = '3.5.0+git7416ffcb'\nDIST = 'pytorch-triton'\n",
                "triton/language/__init__.py": "A = 2\n",
                "triton/only_pytorch.py": "B = 1\n",
            },
        ),
        project(root / "unrelated", "unrelated-dist", "1.0", {"unrelated/__init__.py": "Z = 1\n"}),
    ]
    out = build_wheels(projects, root / "dist")
    return Wheels(
        one_wheel(out, "triton-*.whl"), one_wheel(out, "pytorch_triton-*.whl"), one_wheel(out, "unrelated_dist-*.whl")
    )


def pip(py: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(py), "-m", "pip", "--disable-pip-version-check", *args], capture_output=True, text=True, check=True
    )


def installed(py: Path) -> dict[str, str]:
    """name -> version, as the environment's own pip lists them."""
    import json

    return {d["name"]: d["version"] for d in json.loads(pip(py, "list", "--format=json").stdout)}


@pytest.fixture(scope="session")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty venv, made once; tests copy it (a copied venv works with `python -m pip`)."""
    venv = tmp_path_factory.mktemp("guarantee-venv") / "venv"
    fresh_venv(venv)
    return venv


def copy_venv(base: Path, dest: Path) -> Path:
    shutil.copytree(base, dest, symlinks=True)
    return python_of(dest)


@pytest.fixture(scope="session")
def target_venv(tmp_path_factory: pytest.TempPathFactory, base_venv: Path, wheels: Wheels) -> Path:
    """The user's environment for the bad-input cases: triton and an unrelated distribution installed.

    Shared by every case; each case proves by snapshot that it left it exactly as it was.
    """
    py = copy_venv(base_venv, tmp_path_factory.mktemp("guarantee-target") / f"venv {ODD}")
    pip(py, "install", "-q", "--no-deps", "--no-index", str(wheels.triton), str(wheels.unrelated))
    venv = py.parent.parent
    shutil.copytree(venv, venv.parent / "pristine", symlinks=True)
    return venv


def restore_target_venv(venv: Path) -> None:
    """Put the shared target venv back as it was made, when a case (a failing one) changed it, so that one
    failure does not cascade into the cases after it."""
    from tests.support.snapshot import diff, snapshot

    pristine = venv.parent / "pristine"
    theirs = {k.replace(str(pristine), str(venv), 1): v for k, v in snapshot(pristine).items()}
    if diff(theirs, snapshot(venv)):
        shutil.rmtree(venv)
        shutil.copytree(pristine, venv, symlinks=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on: connections are refused, as with no network."""
    return free_port()


class TruncatingServer:
    """An HTTP server on 127.0.0.1 that announces a body and closes the connection halfway through it:
    an interrupted download."""

    def __init__(self, body: bytes = b"0123456789abcdef" * 64) -> None:
        self.requests: list[str] = []
        body_ = body
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body_)))
                self.end_headers()
                self.wfile.write(body_[: len(body_) // 3])
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = QuietHttpServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def truncating_server() -> Iterator[TruncatingServer]:
    server = TruncatingServer()
    yield server
    server.stop()


def can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


class SmallFs:
    """A tmpfs of a fixed size mounted by the kernel: a real full disk or a real read-only disk."""

    def __init__(self, where: Path, size: str = "512k") -> None:
        where.mkdir(parents=True, exist_ok=True)
        self.where = where
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
            check=True,
            capture_output=True,
        )

    def fill(self) -> None:
        """Use up every free block, so the next write fails with ENOSPC."""
        fd = os.open(self.where / ".filler", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            for size in (65536, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\0" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)

    def read_only(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.where)], check=True, capture_output=True)

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.where)], check=False, capture_output=True)


def stale_kernel_cache(cache: Path) -> Path:
    """A Triton kernel cache with one compiled-kernel entry written in 2017 by Triton 3.4.0: stale for any
    Triton installed since (`doctor --fix` and `cache prune --stale` remove it)."""
    import json

    entry = cache / "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST"
    entry.mkdir(parents=True)
    (entry / "add_kernel.json").write_text(
        json.dumps(
            {
                "name": "add_kernel",
                "triton_version": "3.4.0",
                "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
                "num_warps": 4,
            }
        )
    )
    (entry / "add_kernel.ttir").write_text("module {}\n")
    for path in (entry / "add_kernel.json", entry / "add_kernel.ttir", entry):
        os.utime(path, (1_500_000_000, 1_500_000_000))
    return cache


@pytest.fixture
def scene(tmp_path: Path, world: World, target_venv: Path) -> Iterator[Scene]:
    tmp = tmp_path / ODD
    tmp.mkdir()
    ws = tmp / "ws"
    (ws / "logs").mkdir(parents=True)  # a workspace tritondev has used before
    (ws / "state").mkdir()
    (ws / "state" / "lock").touch()
    restore_target_venv(target_venv)
    py = target_venv / "bin" / "python"
    fields = {
        "tmp": str(tmp),
        "ws": str(ws),
        "py": str(py),
        "mirror": str(world.git_root),
        "T": world.triton_commits["main"],
        "closed": str(closed_port()),
    }
    from tests.integration.guarantees.scene import Scene

    s = Scene(tmp=tmp, ws=ws, py=py, venv=target_venv, world=world, fields=fields)
    yield s
    for item in s.keep:
        if isinstance(item, SmallFs):
            item.unmount()
        else:
            item.close()
