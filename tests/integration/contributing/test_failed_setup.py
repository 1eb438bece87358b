"""A contributor's first `tritondev setup --triton-src` on a machine without the network: Triton's
package host and the LLVM repository cannot be reached (here: 127.0.0.1 ports nobody listens on). What
setup says before anything is fetched, the fix of its failure, and what doctor, `env --editor`, `test`
and `pins` say afterwards. Nothing is built: the setup stops at the LLVM fetch."""

from __future__ import annotations

import json
import os
import pty
import select
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import base_env, tritondev
from tests.support.cli import tritondev_argv
from tests.world.world import World

pytestmark = pytest.mark.timeout(900)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def failed(world: World, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("offline")
    clone = root / "triton"
    subprocess.run(["git", "clone", "-q", str(world.bare["triton"]), str(clone)], check=True)
    git(clone, "switch", "-q", "-c", "my-fix")  # a branch of its own: no upstream
    (clone / "notes.txt").write_text("my notes\n")
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=root / "ccache")
    ws = root / "ws"
    port = closed_port()
    proc = tritondev(
        "setup",
        "--workspace",
        str(ws),
        "--triton-src",
        str(clone),
        "--llvm-prebuilt-url",
        f"http://127.0.0.1:{port}/llvm-builds",
        "--llvm-url",
        f"http://127.0.0.1:{port}/llvm-project.git",
        "--jobs",
        "2",
        env=env,
    )
    return {"root": root, "clone": clone, "env": env, "ws": ws, "proc": proc}


def test_setup_says_what_it_builds_and_what_a_source_build_costs_before_anything_is_fetched(
    failed: dict[str, Any],
) -> None:
    proc, clone = failed["proc"], failed["clone"]
    assert proc.returncode == 4, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()
    error = next(i for i, line in enumerate(lines) if line.startswith("error:"))
    # First: the clone as it is built (ahead/behind origin's default branch: my-fix has no upstream) ...
    said = next(i for i, line in enumerate(lines) if line.startswith(f"building your clone {clone} as it stands"))
    assert "branch my-fix (0 ahead, 0 behind origin/main), 1 uncommitted file(s): notes.txt" in lines[said]
    # ... then the estimate, and, with nobody to ask (no terminal), that it goes on with a source build.
    cost = next(i for i, line in enumerate(lines) if "LLVM/MLIR is built from source: about" in line)
    going_on = next(i for i, line in enumerate(lines) if "going on with the source build without asking" in line)
    assert "the package host cannot be reached" in lines[going_on]
    assert said < cost < going_on < error
    # The LLVM fetch fails: the fix names what works without the network.
    fix = next(line for line in lines if line.startswith("fix:"))
    for way in ("--mirror DIR", "--llvm-url URL", "--llvm PATH", "--llvm prebuilt --llvm-prebuilt-url URL"):
        assert way in fix, fix


def test_doctor_names_the_failed_step_and_what_it_left(failed: dict[str, Any]) -> None:
    ws = failed["ws"]
    assert (ws / "src" / "llvm-project.partial").is_dir()
    proc = tritondev("doctor", "--workspace", str(ws), "--check", "workspace", "--json", env=failed["env"])
    assert proc.returncode == 1, proc.stderr[-3000:]
    found = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}["workspace.last-setup"]
    assert found["status"] == "error", found
    assert found["summary"].startswith(
        f"the last `tritondev setup --triton-src {failed['clone']}` failed at step checkout-llvm-project: "
    )
    assert "--llvm PATH" in found["fix"]
    assert any(f"{ws / 'src' / 'llvm-project.partial'}: a clone that did not finish" in d for d in found["details"])


def test_later_fix_lines_repeat_the_clone_setup_was_asked_for(failed: dict[str, Any]) -> None:
    ws, clone = failed["ws"], failed["clone"]
    wanted = f"tritondev setup --workspace {ws} --triton-src {clone}"
    for args in (("env", "--editor"), ("test", "nogpu")):
        proc = tritondev(*args, "--workspace", str(ws), env=failed["env"])
        assert proc.returncode == 2, proc.stderr[-3000:]
        assert wanted in proc.stderr, proc.stderr


def test_pins_reads_the_clone_it_is_given_or_runs_in(failed: dict[str, Any]) -> None:
    """No network here: `pins` asking PyTorch would fail; the clone's own files answer."""
    clone, env = failed["clone"], failed["env"]
    head = git(clone, "rev-parse", "HEAD")
    for args, cwd in ((("--triton-src", str(clone)), failed["root"]), ((), clone / "python")):
        proc = tritondev(
            "pins",
            "--workspace",
            str(failed["ws"]),
            "--pytorch-url",
            "http://127.0.0.1:9/pytorch.git",
            *args,
            "--json",
            env=env,
            cwd=cwd,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        data = json.loads(proc.stdout)
        assert data["triton_commit"] == head and data["llvm_commit_source"].startswith("cmake/llvm-info.json in your")
    assert f"reading the Triton checkout you are in, {clone}" in proc.stderr


def test_on_a_terminal_a_source_build_for_an_unreachable_host_is_asked_first(failed: dict[str, Any]) -> None:
    """The host may answer in a minute (unlike a 404): on a terminal setup asks before committing to hours
    of LLVM build; "no" stops it (exit 4) before anything is fetched or created but the workspace's state."""
    ws = failed["root"] / "asked-ws"
    port = closed_port()
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        tritondev_argv(
            "setup",
            "--workspace",
            str(ws),
            "--triton-src",
            str(failed["clone"]),
            "--llvm-prebuilt-url",
            f"http://127.0.0.1:{port}/llvm-builds",
            "--jobs",
            "2",
        ),
        stdin=slave,
        stderr=slave,
        stdout=subprocess.DEVNULL,
        env=failed["env"],
        cwd=failed["root"],
    )
    os.close(slave)
    said = b""
    deadline = time.monotonic() + 600
    try:
        while b"from source instead?" not in said:
            assert proc.poll() is None and time.monotonic() < deadline, said.decode(errors="replace")[-3000:]
            if select.select([master], [], [], 0.5)[0]:
                said += os.read(master, 65536)
        os.write(master, b"n\n")
        assert proc.wait(timeout=600) == 4
        while select.select([master], [], [], 0.5)[0]:
            try:
                said += os.read(master, 65536)
            except OSError:  # the other end is closed
                break
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    text = said.decode(errors="replace")
    assert "the package host cannot be reached" in text and "no LLVM source build without a yes" in text, text
    assert not (ws / "src").exists() and not (ws / "venv").exists()
