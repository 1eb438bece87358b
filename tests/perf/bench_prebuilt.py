"""Prebuilt LLVM benchmarks, measured in one run:

- `tritondev setup --llvm prebuilt` against `--llvm source` on the test world (real mini LLVM and
  Triton builds, each workspace with an empty ccache of its own): the whole setup, and its LLVM
  part alone (clone + configure + build against download + check + unpack + proof it runs). The
  package is made from the source setup's own LLVM build, installed and tarred as Triton's are,
  and pinned (its real sha256) by a Triton commit of a private world;
- download throughput against plain `curl` of the same 256 MiB file from the same local server
  (tests/world/packages.py), median of interleaved runs (goal >= 0.9x);
- the bytes a download resumed after a dropped connection fetches against the rest of the file
  (goal <= 1.05x);
- what `--llvm auto`'s decision costs before anything is built: one HEAD request to the package host
  the first time for a pin, none once remembered, and how long an unreachable host delays it.

Files live on tmpfs (/dev/shm) when it has room, so that both clients are measured, not the disk.

Run: python tests/perf/run.py prebuilt
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bootstrap.git.setup_py import SetupPyArgs

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bootstrap.core.errors import ExternalError  # noqa: E402
from bootstrap.pipeline.llvm.download import download  # noqa: E402
from bootstrap.pipeline.llvm.source import detect_host, host_suffix  # noqa: E402
from tests.integration.build.harness import base_env, setup_args  # noqa: E402
from tests.perf.setup_runs import setup as _setup  # noqa: E402  (setup --json, timed)
from tests.world.packages import PackageServer, commit_llvm_info, package_llvm, sha256_of  # noqa: E402
from tests.world.world import build_world  # noqa: E402

BIG = 256 << 20
DOWNLOAD_RUNS = 7
SOURCE_LLVM = ("checkout-llvm-project", "llvm-configure", "llvm-build")


def _step_seconds(report: dict[str, Any], names: tuple[str, ...]) -> float:
    seconds: float = sum(s["seconds"] for s in report["steps"] if s["step"] in names and s["status"] == "ran")
    return seconds


def measure_setups(root: Path) -> list[dict[str, object]]:
    world = build_world(root / "world")
    source_env = base_env(root / "home-s", xdg=root / "xdg-s", ccache_dir=root / "ccache-s")
    args = setup_args(world, root / "ws-source", "root-json", "--build-type", "Release", "--skip-verify", "--json")
    source_s, source = _setup(args, source_env)

    suffix, _ = host_suffix(detect_host(), SetupPyArgs(), {})
    if suffix is None:
        raise RuntimeError("this machine has no prebuilt LLVM suffix")
    name = f"llvm-{world.llvm_commit[:8]}-{suffix}-1"
    package = package_llvm(Path(source["llvm_build"]), root / "packages", name)
    info = {"llvm_hash": world.llvm_commit, "build_number": 1, "sha256sum": {suffix: package.sha256}}
    pin = commit_llvm_info(world, "root-json", info)
    server = PackageServer(root / "packages").start()
    try:
        prebuilt_env = base_env(root / "home-p", xdg=root / "xdg-p", ccache_dir=root / "ccache-p")
        args = [
            "setup",
            "--workspace",
            str(root / "ws-prebuilt"),
            "--mirror",
            str(world.git_root),
            "--triton-commit",
            pin,
            "--jobs",
            "2",
            "--link-jobs",
            "2",
            "--build-type",
            "Release",
            "--skip-verify",
            "--llvm",
            "prebuilt",
            "--llvm-prebuilt-url",
            server.base_url,
            "--json",
        ]
        prebuilt_s, prebuilt = _setup(args, prebuilt_env)
    finally:
        server.stop()
    llvm_source, llvm_prebuilt = _step_seconds(source, SOURCE_LLVM), _step_seconds(prebuilt, ("llvm-download",))
    whole, part = source_s / prebuilt_s, llvm_source / max(llvm_prebuilt, 1e-3)
    return [
        {
            "metric": "setup --llvm prebuilt vs --llvm source, mini world, cold ccache: speed-up",
            "measured": f"{whole:.1f}x ({source_s:.1f} s -> {prebuilt_s:.1f} s)",
            "goal": "> 1x",
            "pass": whole > 1,
        },
        {
            "metric": "  its LLVM part: clone+configure+build vs download+check+unpack",
            "measured": f"{part:.0f}x ({llvm_source:.1f} s -> {llvm_prebuilt:.2f} s)",
            "goal": "> 1x",
            "pass": part > 1,
        },
    ]


def _scratch() -> Path:
    shm = Path("/dev/shm")
    if shm.is_dir() and shutil.disk_usage(shm).free > 4 * BIG:
        return Path(tempfile.mkdtemp(prefix="tritondev-bench-dl-", dir=shm))
    return Path(tempfile.mkdtemp(prefix="tritondev-bench-dl-"))


def measure_download(root: Path) -> list[dict[str, object]]:
    served, out = root / "served", root / "out"
    served.mkdir()
    out.mkdir()
    with (served / "big.bin").open("wb") as fh:
        for _ in range(BIG >> 20):
            fh.write(os.urandom(1 << 20))
    # The server runs in a process of its own: an in-process one would share the interpreter (and its
    # lock) with the client being measured, and not with curl.
    server_process = subprocess.Popen(
        [sys.executable, "-m", "tests.world.packages", str(served)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert server_process.stdout is not None
    url = server_process.stdout.readline().strip() + "/big.bin"
    curl = shutil.which("curl")
    rows: list[dict[str, object]] = []
    try:
        ours, theirs, then_summed = [], [], []
        for _ in range(DOWNLOAD_RUNS):
            if curl is not None:
                started = time.perf_counter()
                subprocess.run([curl, "-s", "-f", "-o", str(out / "curl.bin"), url], check=True)
                theirs.append(time.perf_counter() - started)
                sha256_of(out / "curl.bin")  # Triton's build_helpers.py: curl, then hashlib over the file
                then_summed.append(time.perf_counter() - started)
                (out / "curl.bin").unlink()
            started = time.perf_counter()
            download(url, out / "ours.bin", sha256=None)
            ours.append(time.perf_counter() - started)
            (out / "ours.bin").unlink()
        mib = BIG / 2**20
        if curl is None:
            rows.append(
                {
                    "metric": "download throughput vs curl",
                    "measured": "curl is not installed",
                    "goal": ">= 0.9x",
                    "pass": False,
                }
            )
        else:
            ratio = statistics.median(theirs) / statistics.median(ours)
            rows.append(
                {
                    "metric": f"download throughput vs plain curl, {mib:.0f} MiB local, median of "
                    f"{DOWNLOAD_RUNS} (sha256 included)",
                    "measured": f"{ratio:.2f}x ({mib / statistics.median(ours):.0f} vs"
                    f" {mib / statistics.median(theirs):.0f} MiB/s)",
                    "goal": ">= 0.9x",
                    "pass": ratio >= 0.9,
                }
            )
            summed = statistics.median(then_summed) / statistics.median(ours)
            rows.append(
                {
                    "metric": "  vs curl and then sha256 of the file (Triton's own way), median",
                    "measured": f"{summed:.2f}x ({mib / statistics.median(then_summed):.0f} MiB/s)",
                    "goal": "-",
                    "pass": True,
                }
            )
    finally:
        server_process.terminate()
        server_process.wait()
    server = PackageServer(served).start()  # in-process: its record of what it sent is read here
    try:
        rows.append(_resumed(server, server.url("big.bin"), out))
    finally:
        server.stop()
    return rows


def _resumed(server: PackageServer, url: str, out: Path) -> dict[str, object]:
    half = BIG // 2
    server.drop_after["big.bin"] = half
    before = len(server.served())
    try:
        download(url, out / "resumed.bin", sha256=None, retries=0)
    except ExternalError:
        pass  # the connection was dropped: the .part keeps what came
    got = download(url, out / "resumed.bin", sha256=None, retries=0)
    second = server.served()[before + 1 :]
    sent = sum(r.sent for r in second)
    rest = BIG - half
    ratio = sent / rest
    return {
        "metric": "resumed download: bytes fetched after the drop vs the rest of the file",
        "measured": f"{ratio:.3f}x ({sent} / {rest} bytes; resumed at {got.resumed_from})",
        "goal": "<= 1.05x",
        "pass": ratio <= 1.05 and got.size == BIG,
    }


AUTO_RUNS = 15


def measure_auto(root: Path) -> list[dict[str, object]]:
    """--llvm auto's check: requests made and time taken, first asked, remembered, host unreachable."""
    import socket

    from bootstrap.pipeline.llvm.auto import observe_auto, remember_answer

    (root / "pkg").mkdir()
    (root / "pkg" / "llvm-0123abcd-ubuntu-x64-1.tar.gz").write_bytes(b"x" * 1024)
    server = PackageServer(root / "pkg").start()
    pin, url = "0123abcd" + "0" * 32, server.url("llvm-0123abcd-ubuntu-x64-1.tar.gz")

    def timed(state: Path, package_url: str) -> float:
        """Observed, then the answer recorded as setup's execution records it."""
        started = time.perf_counter()
        learnt = observe_auto(state, pin, package_url, "", offline=False, url_given=True).learnt
        if learnt is not None:
            remember_answer(state, learnt.url, learnt.answer)
        return time.perf_counter() - started

    try:
        before = len(server.served())
        first, again = [], []
        for i in range(AUTO_RUNS):
            state = root / f"state-{i}"
            state.mkdir()
            first.append(timed(state, url))
            again.append(timed(state, url))
        requests = server.served()[before:]
    finally:
        server.stop()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}/llvm-builds/x.tar.gz"
    unreachable = [timed(root / "state-0", dead) for _ in range(5)]
    per_pin = len(requests) / AUTO_RUNS
    return [
        {
            "metric": f"--llvm auto decision: requests per pin (first run, then remembered; {AUTO_RUNS} pins)",
            "measured": f"{per_pin:.0f} HEAD, then {0 if all(r.method == 'HEAD' for r in requests) else '?'}",
            "goal": "1, then 0",
            "pass": per_pin == 1 and all(r.method == "HEAD" for r in requests),
        },
        {
            "metric": "--llvm auto decision: time (median; asked a local host / remembered / host unreachable)",
            "measured": f"{statistics.median(first) * 1e3:.1f} ms / {statistics.median(again) * 1e3:.2f} ms /"
            f" {statistics.median(unreachable) * 1e3:.1f} ms",
            "goal": "< 1 s each",
            "pass": max(statistics.median(v) for v in (first, again, unreachable)) < 1.0,
        },
    ]


def run() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    scratch = _scratch()
    try:
        rows += measure_auto(scratch)
        rows += measure_download(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    root = Path(tempfile.mkdtemp(prefix="tritondev-bench-prebuilt-"))
    try:
        rows += measure_setups(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rows


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for row in run():
        print(row)
