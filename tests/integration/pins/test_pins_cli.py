"""`tritondev pins` as users run it, over the test world: JSON and human output, bad input, offline,
a 404, and the raw-file host unreachable (git takes over).
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.errors import ExitCode
from bootstrap.core.process.runner import Runner
from tests.conftest import Cli
from tests.world.servers import RawServer
from tests.world.world import World


def test_cli_json(world: World, cli: Cli, tmp_path: Path) -> None:
    result = cli(
        "pins",
        "--torch-ref",
        "v2.5.0",
        "--pytorch-url",
        str(world.bare["pytorch"]),
        "--triton-url",
        str(world.bare["triton"]),
        "--workspace",
        str(tmp_path / "ws"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in (
        "torch_ref",
        "triton_commit",
        "triton_version",
        "llvm_commit",
        "llvm_pin_file",
        "setup_py_dir",
        "torch_ref_source",
        "triton_commit_source",
        "llvm_commit_source",
        "llvm_url",
    ):
        assert key in data
    assert data["triton_commit"] == world.pytorch_tags["v2.5.0"].triton
    assert data["setup_py_dir"] == "python"
    assert not (tmp_path / "ws").exists()


def test_cli_human(world: World, cli: Cli, tmp_path: Path) -> None:
    result = cli("pins", "--torch-ref", "v2.14.0", "--mirror", str(world.git_root), "--workspace", str(tmp_path / "ws"))
    assert result.returncode == 0, result.stderr
    assert world.pytorch_tags["v2.14.0"].triton in result.stdout
    assert "cmake/llvm-info.json" in result.stdout


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--torch-ref=--upload-pack=x"], ExitCode.USAGE, "would be read as an option"),
        (["--pytorch-url", "ext::sh -c id"], ExitCode.USAGE, "remote-helper"),
        (["--backend", "rocm"], ExitCode.USAGE, "expected one of nvidia, amd"),
        (["--backend", "xpu"], ExitCode.USAGE, "intel/intel-xpu-backend-for-triton"),
        (["--triton-commit", "a" * 39], ExitCode.USAGE, "39 hex digits"),
        (["--torch-ref", "v9.9.8-emptypin"], ExitCode.MISMATCH, "empty"),
        (["--torch-ref", "no-such-tag"], ExitCode.USAGE, "no-such-tag"),
    ],
)
def test_cli_errors(world: World, cli: Cli, tmp_path: Path, args: list[str], code: int, says: str) -> None:
    base = [
        "pins",
        "--json",
        "--workspace",
        str(tmp_path / "ws"),
        "--pytorch-url",
        str(world.bare["pytorch"]),
        "--triton-url",
        str(world.bare["triton"]),
    ]
    result = cli(*base, *args)
    assert result.returncode == code, result.stderr
    assert says in result.stderr
    assert json.loads(result.stdout)["exit_code"] == code
    assert "Traceback" not in result.stderr


def test_cli_offline_and_404(world: World, cli: Cli, raw_http_server: RawServer, tmp_path: Path) -> None:
    port = _closed_port()

    def pins(ref: str, pytorch_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
        return cli(
            "pins", "--torch-ref", ref, "--pytorch-url", pytorch_url, *extra, "--workspace", str(tmp_path / "ws")
        )

    offline = pins("v2.5.0", f"git://127.0.0.1:{port}/pytorch.git")
    assert offline.returncode == ExitCode.EXTERNAL_FAILED, offline.stderr
    assert "cannot fetch v2.5.0" in offline.stderr and "fix:" in offline.stderr
    raw_offline = pins("v2.5.0", f"raw+http://127.0.0.1:{port}/pytorch/pytorch")
    assert raw_offline.returncode == ExitCode.EXTERNAL_FAILED, raw_offline.stderr
    assert "cannot download" in raw_offline.stderr and "offline" in raw_offline.stderr
    missing = pins(
        "v0.0.1", f"raw+{raw_http_server.base_url}/pytorch/pytorch", "--triton-url", str(world.bare["triton"])
    )
    assert missing.returncode == ExitCode.MISMATCH, missing.stderr
    assert "no Triton pin" in missing.stderr


def test_raw_falls_back_to_git_when_the_raw_host_is_unreachable(world: World, tmp_path: Path) -> None:
    from bootstrap.git.blobs import LocalRepoReader
    from bootstrap.git.fetch import FallbackReader
    from bootstrap.git.rawfiles import RawReader

    port = _closed_port()  # raw.githubusercontent.com blocked (proxy, firewall): git must still work
    runner = Runner(silent=True)
    reader = FallbackReader(
        RawReader(f"http://127.0.0.1:{port}/pytorch/pytorch", "v2.7.1", retries=0),
        lambda: LocalRepoReader(world.bare["pytorch"], world.bare["pytorch"], "v2.7.1", runner),
    )
    text = reader.read(".ci/docker/ci_commit_pins/triton.txt")
    assert text is not None and text.strip() == world.pytorch_tags["v2.7.1"].triton
    assert "read through git instead" in reader.note
    assert reader.commit == world.pytorch_tags["v2.7.1"].commit
