"""The machinery of the bad-input suites: a scene (a used workspace, the user's real target venv,
the test world), prepare functions that set up one bad input, and the check that runs the real CLI
in a subprocess and compares snapshots of every folder the case names before and after.

All scratch paths contain spaces and non-ASCII letters.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pytest

from tests.conftest import Cli
from tests.integration.guarantees.conftest import ODD, SmallFs, can_mount, stale_kernel_cache
from tests.support.kernels import add_kernel_module
from tests.support.snapshot import diff, snapshot
from tests.support.venvs import triton_venv
from tests.world.world import World

# The documented exit codes (README, "Exit codes").
USAGE, TOOL, EXTERNAL, MISMATCH, LOCKED = 2, 3, 4, 5, 6


class Closable(Protocol):
    def close(self) -> None: ...


@dataclass
class Scene:
    """What one case runs against; `prepare` functions add to it."""

    tmp: Path
    ws: Path
    py: Path
    venv: Path
    world: World
    fields: dict[str, str]
    env: dict[str, str] = field(default_factory=dict)
    roots: list[Path] = field(default_factory=list)  # more folders that must not change
    keep: list[SmallFs | Closable] = field(default_factory=list)  # held locks and mounts: released after the case
    small_fs: list[SmallFs] = field(default_factory=list)
    absent: list[Path] = field(default_factory=list)  # paths that must still not exist afterwards

    def mount(self, name: str, size: str = "512k") -> Path:
        fs = SmallFs(self.tmp / name, size)
        self.small_fs.append(fs)
        self.keep.append(fs)
        return fs.where


Prepare = Callable[[Scene], None]


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    code: int
    message: str
    prepare: Prepare | None = None
    json: bool = False  # also check the one-JSON-document error form
    needs_mount: bool = False
    timeout: float = 300  # a hang is a failure too
    hidden: str = ""  # a secret the input carries: never in the output nor in any log


# -- prepare functions ------------------------------------------------------------------------------


def toml(text: str) -> Prepare:
    def prepare(s: Scene) -> None:
        (s.ws / "tritondev.toml").write_text(text, encoding="utf-8")

    return prepare


def pyproject(text: str) -> Prepare:
    def prepare(s: Scene) -> None:
        (s.ws / "pyproject.toml").write_text(text, encoding="utf-8")

    return prepare


def env(**values: str) -> Prepare:
    def prepare(s: Scene) -> None:
        s.env.update(values)

    return prepare


def not_python(s: Scene) -> None:
    fake = s.tmp / "not python"
    fake.write_text("#!/bin/sh\necho 'I am not Python'\n")
    fake.chmod(0o755)
    s.fields["notpy"] = str(fake)
    s.roots.append(fake)


def new_workspace(s: Scene) -> None:
    """The workspace does not exist yet: a rejected command must not create it."""
    ws = s.tmp / f"new workspace {ODD}"
    s.fields["newws"] = str(ws)
    s.absent.append(ws)


def read_only_workspace(s: Scene) -> None:
    where = s.mount(f"ro {ODD}")
    (where / "ws" / "logs").mkdir(parents=True)
    (where / "ws" / "state").mkdir()
    s.small_fs[-1].read_only()
    s.fields["ro"] = str(where / "ws")
    s.roots.append(where)


def full_disk_workspace(s: Scene) -> None:
    where = s.mount(f"full {ODD}")
    (where / "ws" / "logs").mkdir(parents=True)
    (where / "ws" / "state").mkdir()
    (where / "ws" / "state" / "lock").touch()
    s.small_fs[-1].fill()
    s.fields["full"] = str(where / "ws")
    s.roots.append(where)


def full_disk_out(s: Scene) -> None:
    where = s.mount(f"full out {ODD}")
    s.small_fs[-1].fill()
    s.fields["fullout"] = str(where / "out")
    s.roots.append(where)


def path_without(*tools: str) -> Prepare:
    """PATH = one folder linking every program on PATH except `tools` (a machine without them)."""

    def prepare(s: Scene) -> None:
        folder = s.tmp / f"bin without {'-'.join(tools)}"
        folder.mkdir()
        for directory in os.environ.get("PATH", "").split(os.pathsep):
            if not directory or not os.path.isdir(directory):
                continue
            for name in os.listdir(directory):
                target = Path(directory) / name
                if name in tools or (folder / name).exists() or (folder / name).is_symlink():
                    continue
                if target.is_file() and os.access(target, os.X_OK):
                    (folder / name).symlink_to(target)
        s.env["PATH"] = str(folder)

    return prepare


def hold_lock(s: Scene) -> None:
    """Another tritondev holds the workspace lock (the same flock a running command takes)."""
    lock = s.ws / "state" / "lock"
    fh = lock.open("r+")
    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    s.keep.append(fh)


def dirty_checkout(s: Scene) -> None:
    """A Triton checkout at the pin with an uncommitted edit: the user's work in progress."""
    dest = s.ws / "src" / "triton"
    commit = s.world.triton_commits["main"]
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(s.world.bare["triton"]), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "--detach", commit], check=True)
    (dest / "setup.py").write_text((dest / "setup.py").read_text() + "\n# my local experiment\n")
    (dest / "my notes é.txt").write_text("untracked work\n")


def bad_journal(s: Scene) -> None:
    (s.ws / "state" / "purge-journal.json").write_text("{ this is not json", encoding="utf-8")


def kernel_file(s: Scene) -> None:
    src = s.tmp / f"kernels {ODD}"
    src.mkdir()
    (src / "add.py").write_text(add_kernel_module())
    s.fields["kernel"] = str(src / "add.py")
    s.fields["out"] = str(src / "out")
    s.roots.append(src)


def real_triton(s: Scene) -> None:
    """The shared venv with triton 3.9.0 from the package index (read-only here; too big to snapshot)."""
    s.fields["tpy"] = str(triton_venv())


def cache_dir(s: Scene) -> None:
    cache = stale_kernel_cache(s.tmp / f"cache {ODD}")
    s.fields["cache"] = str(cache)
    s.roots.append(cache)


def stale_cache_in_env(s: Scene) -> None:
    """A kernel cache (TRITON_CACHE_DIR) with an entry of another Triton version: doctor --fix would clear it."""
    cache_dir(s)
    s.env["TRITON_CACHE_DIR"] = s.fields["cache"]


def dump_dir_in_use(s: Scene) -> None:
    dumps = s.tmp / f"dumps {ODD}"
    dumps.mkdir()
    (dumps / "0001-InlinerPass.mlir").write_text("earlier dump\n")
    s.fields["dumps"] = str(dumps)
    s.roots.append(dumps)


IR_DUMP = Path(__file__).resolve().parents[2] / "unit" / "ir" / "dumps" / "triton-3.9-cuda90-warps4"


def ir_dump(s: Scene) -> None:
    """An IR dump folder as `tritondev run --dump-ir` writes it (Triton 3.9, cuda:90), the user's."""
    dump = s.tmp / f"dump {ODD}"
    shutil.copytree(IR_DUMP, dump)
    s.fields["dump"] = str(dump)
    s.roots.append(dump)


def both(*prepares: Prepare) -> Prepare:
    def prepare(s: Scene) -> None:
        for p in prepares:
            p(s)

    return prepare


def check_output(case: Case, proc: subprocess.CompletedProcess[str]) -> None:
    everything = proc.stdout + proc.stderr
    assert "Traceback" not in everything, everything
    assert proc.returncode == case.code, f"exit {proc.returncode}, expected {case.code}:\n{everything[-3000:]}"
    if case.json:
        document = json.loads(proc.stdout)  # exactly one JSON document on stdout
        assert document["exit_code"] == case.code
        assert case.message.lower() in document["message"].lower(), document
        assert document["fix"], document
        assert "\n" not in document["message"], document  # one line
        return
    assert case.message.lower() in proc.stderr.lower(), proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    error_lines = [line for line in lines if line.startswith(("error:", "Error:", "│ "))]
    assert error_lines, proc.stderr
    if any(line.startswith("error:") for line in lines):
        # our own errors: one line saying what is wrong, then what to do about it
        assert any(line.startswith("fix:") for line in lines), proc.stderr
    else:
        # the option parser's errors: the line names the option and points at --help
        assert "-h' for help" in proc.stderr or "--help" in proc.stderr, proc.stderr


def run_case(case: Case, scene: Scene, cli: Cli, trunc_url: str) -> subprocess.CompletedProcess[str]:
    """Prepare the case, run the CLI, and hold the promise: the documented exit code, one line and a
    fix (or one JSON document), no traceback, and no change on disk but a new log under logs/."""
    if case.needs_mount and not can_mount():
        pytest.skip("needs root and mount(8) for a real full or read-only filesystem")
    scene.fields["trunc"] = trunc_url
    if case.prepare is not None:
        case.prepare(scene)
    argv = [part.format(**scene.fields) for part in case.argv]
    roots = [scene.ws, scene.venv, *scene.roots]
    before = snapshot(*roots)
    proc = cli(*argv, env=scene.env, cwd=scene.tmp, timeout=case.timeout)
    after = snapshot(*roots)
    check_output(case, proc)
    logs = str(scene.ws / "logs") + os.sep
    changes = [c for c in diff(before, after) if not (c.startswith("added ") and c[len("added ") :].startswith(logs))]
    assert changes == [], f"{case.id} changed the disk:\n" + "\n".join(changes)
    for path in scene.absent:
        assert not path.exists(), f"{case.id} created {path}"
    if case.hidden:
        assert case.hidden not in proc.stdout + proc.stderr, f"{case.id} showed a secret"
        for log in (scene.ws / "logs").rglob("*"):
            if log.is_file():
                assert case.hidden not in log.read_text(errors="replace"), f"{case.id} logged a secret in {log}"
    return proc
