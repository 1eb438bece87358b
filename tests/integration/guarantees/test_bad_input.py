"""Bad input, for every command: a clear message with a fix, the documented exit code, no traceback,
and nothing changed on disk.

Each case is one row: the command line, what to prepare (a file, an environment variable, a full or
read-only filesystem, a PATH without a tool, a held lock, a server that drops the connection), the exit
code the README's table documents, and a piece of the message. The real CLI runs in a subprocess.
Before and after, the workspace, the user's target environment (a real venv with a Triton and an
unrelated distribution installed) and every other folder the case names are snapshotted (file
contents, modes, links); the snapshots must be equal. The one exception is a new file under
`<workspace>/logs/`: a failing command may leave the log its message points at.

All scratch paths contain spaces and non-ASCII letters.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.integration.guarantees.conftest import (
    ODD,
    SmallFs,
    TruncatingServer,
    can_mount,
    closed_port,
    restore_target_venv,
    stale_kernel_cache,
)
from tests.support.snapshot import diff, snapshot
from tests.support.venvs import triton_venv
from tests.world.world import World

# The documented exit codes (README, "Exit codes").
USAGE, TOOL, EXTERNAL, MISMATCH, LOCKED = 2, 3, 4, 5, 6


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
    keep: list[Any] = field(default_factory=list)  # open files (locks), mounts: released after the case
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
    (src / "add.py").write_text(
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs), mask=offs < n)\n"
    )
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


def both(*prepares: Prepare) -> Prepare:
    def prepare(s: Scene) -> None:
        for p in prepares:
            p(s)
    return prepare


# -- the table ----------------------------------------------------------------------------------------

SETUP = ("setup", "--workspace", "{ws}", "--python", "{py}", "--mirror", "{mirror}", "--jobs", "2")
SETUP_T = (*SETUP, "--triton-commit", "{T}")
PINS = ("pins", "--workspace", "{ws}", "--python", "{py}", "--mirror", "{mirror}")

CASES: list[Case] = [
    # settings: the file, the environment, option values
    Case("config-toml-syntax", ("config", "show", "--workspace", "{ws}"), USAGE, "is not valid TOML",
         toml('build_type = "Debug"\njobs = [\n')),
    Case("config-toml-unknown-key", ("config", "show", "--workspace", "{ws}", "--json"), USAGE,
         "did you mean 'build_type'", toml('buildtype = "Debug"\n'), json=True),
    Case("config-toml-wrong-type", ("config", "show", "--workspace", "{ws}"), USAGE, "invalid value 'many' for 'jobs'",
         toml('jobs = "many"\n')),
    Case("config-toml-workspace-key", ("config", "show", "--workspace", "{ws}"), USAGE, "unknown key 'workspace'",
         toml('workspace = "/elsewhere"\n')),
    Case("pyproject-bad-backend", ("pins", "--workspace", "{ws}"), USAGE, "expected one of nvidia, amd",
         pyproject('[project]\nname = "x"\n[tool.tritondev]\nbackend = "cuda"\n')),
    Case("env-unknown-variable", ("doctor", "--workspace", "{ws}"), USAGE, "did you mean 'TRITONDEV_JOBS'",
         env(TRITONDEV_JOBZ="3")),
    Case("env-bad-bool", ("setup", "--workspace", "{ws}", "--python", "{py}", "--dry-run"), USAGE,
         "expected true or false", env(TRITONDEV_CCACHE="maybe")),
    Case("setup-build-type", (*SETUP, "--build-type", "Fast"), USAGE, "expected one of Debug, Release, RelWithDebInfo"),
    Case("setup-llvm-build-type", (*SETUP, "--llvm-build-type", "MinSizeRel", "--json"), USAGE,
         "invalid value 'MinSizeRel'", json=True),
    Case("setup-backend", (*SETUP, "--backend", "cuda"), USAGE, "expected one of nvidia, amd"),
    Case("setup-jobs-zero", (*SETUP, "--jobs", "0"), USAGE, "must be 1 or more"),
    Case("setup-jobs-not-a-number", (*SETUP, "--jobs", "lots"), USAGE, "Invalid value for '--jobs'"),
    Case("setup-unknown-option", (*SETUP, "--buildtype", "Debug"), USAGE, "No such option"),
    Case("setup-ccache-remote-url", (*SETUP_T, "--ccache-remote", "ftp://cache.example/x"), USAGE,
         "unsupported ccache remote URL"),
    Case("setup-both-refs", (*SETUP_T, "--torch-ref", "v2.5.0"), USAGE, "exclude each other"),
    # pins, refs and URLs
    Case("setup-short-commit", (*SETUP, "--triton-commit", "abc123"), USAGE, "has 6 hex digits"),
    Case("setup-ref-like-option", (*SETUP, "--torch-ref", "--upload-pack=touch /tmp/x"), USAGE, "starts with '-'"),
    Case("setup-ext-transport", (*SETUP_T, "--triton-url", "ext::sh -c touch% /tmp/pwned"), USAGE,
         "remote-helper transports"),
    Case("pins-bad-url-scheme", ("pins", "--workspace", "{ws}", "--pytorch-url", "ftp://example.com/pytorch.git",
                                 "--torch-ref", "v2.5.0"), USAGE, "ftp"),
    Case("setup-mirror-missing", ("setup", "--workspace", "{ws}", "--python", "{py}", "--mirror", "{tmp}/no mirror"),
         USAGE, "has no triton.git"),
    Case("pins-malformed-pin", (*PINS, "--torch-ref", "v9.9.9-badpin", "--json"), MISMATCH, "39 hex digits",
         json=True),
    Case("setup-malformed-pin", (*SETUP, "--torch-ref", "v9.9.9-badpin"), MISMATCH, "39 hex digits"),
    Case("setup-empty-pin", (*SETUP, "--torch-ref", "v9.9.8-emptypin"), MISMATCH, "empty"),
    Case("pins-pin-with-trailing-text", (*PINS, "--torch-ref", "v9.9.7-garbage"), MISMATCH, "triton.txt"),
    Case("setup-unknown-pinned-commit", (*SETUP, "--torch-ref", "v9.9.4-unknownpin"), MISMATCH, "not in"),
    Case("pins-unknown-ref", (*PINS, "--torch-ref", "v7.7.7"), USAGE, "v7.7.7"),
    # the target environment
    Case("setup-python-not-interpreter", (*SETUP_T[:3], "--python", "{notpy}", *SETUP_T[5:]), USAGE,
         "is not a working Python interpreter", not_python),
    Case("setup-python-missing-new-workspace",
         ("setup", "--workspace", "{newws}", "--python", "{tmp}/no such python", "--mirror", "{mirror}",
          "--triton-commit", "{T}"), USAGE, "does not exist", new_workspace),
    Case("purge-python-not-interpreter-new-workspace", ("purge", "--workspace", "{newws}", "--python", "{notpy}"),
         USAGE, "is not a working Python interpreter", both(new_workspace, not_python)),
    Case("build-without-setup-new-workspace", ("build", "--workspace", "{newws}"), USAGE,
         "no finished `tritondev setup`", new_workspace),
    Case("doctor-unknown-check-new-workspace", ("doctor", "--workspace", "{newws}", "--check", "gpu.drivr"), USAGE,
         "did you mean", new_workspace),
    Case("pins-malformed-pin-new-workspace", ("pins", "--workspace", "{newws}", "--mirror", "{mirror}",
                                              "--torch-ref", "v9.9.8-emptypin"), MISMATCH, "empty", new_workspace),
    Case("purge-python-not-interpreter", ("purge", "--workspace", "{ws}", "--python", "{notpy}", "--json"), USAGE,
         "is not a working Python interpreter", not_python, json=True),
    Case("purge-system-python", ("purge", "--workspace", "{ws}", "--python", "/usr/bin/python3"), USAGE, "--system"),
    Case("verify-python-missing", ("verify", "--workspace", "{ws}", "--python", "{tmp}/nowhere/python"), USAGE,
         "does not exist"),
    Case("cache-python-not-interpreter", ("cache", "ls", "--dir", "{cache}", "--workspace", "{ws}", "--python",
                                          "{notpy}"), USAGE, "not a working Python", both(not_python, cache_dir)),
    # the workspace: read-only, full, locked, someone's work in a checkout, a broken journal
    Case("setup-read-only-workspace", ("setup", "--workspace", "{ro}", "--python", "{py}", "--mirror", "{mirror}",
                                       "--triton-commit", "{T}"), USAGE, "not writable", read_only_workspace,
         needs_mount=True),
    Case("purge-read-only-workspace", ("purge", "--workspace", "{ro}", "--python", "{py}"), USAGE, "not writable",
         read_only_workspace, needs_mount=True),
    Case("setup-full-disk", ("setup", "--workspace", "{full}", "--python", "{py}", "--mirror", "{mirror}",
                             "--triton-commit", "{T}"), EXTERNAL, "No space left on device", full_disk_workspace,
         needs_mount=True),
    Case("doctor-fix-full-disk", ("doctor", "--workspace", "{full}", "--python", "{py}", "--fix",
                                  "--check", "cache"), EXTERNAL, "No space left on device",
         both(full_disk_workspace, stale_cache_in_env), needs_mount=True),
    Case("compile-out-on-full-disk", ("compile", "{kernel}::add_kernel", "--signature",
                                      "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32", "--constexpr", "BLOCK=64",
                                      "--target", "cuda:90", "--out", "{fullout}", "--workspace", "{ws}",
                                      "--python", "{tpy}"), EXTERNAL, "No space left on device",
         both(kernel_file, full_disk_out, real_triton),
         needs_mount=True),
    Case("purge-locked", ("purge", "--workspace", "{ws}", "--python", "{py}"), LOCKED, "is locked", hold_lock),
    Case("setup-locked", (*SETUP_T, "--json"), LOCKED, "is locked", hold_lock, json=True),
    Case("build-locked", ("build", "--workspace", "{ws}"), LOCKED, "is locked", hold_lock),
    Case("doctor-fix-locked", ("doctor", "--workspace", "{ws}", "--python", "{py}", "--fix"), LOCKED, "is locked",
         both(hold_lock, stale_cache_in_env)),
    Case("setup-dirty-checkout", (*SETUP_T,), LOCKED, "setup.py", dirty_checkout),
    Case("build-without-setup", ("build", "--workspace", "{ws}"), USAGE, "no finished `tritondev setup`"),
    Case("purge-restore-bad-journal", ("purge", "--workspace", "{ws}", "--python", "{py}", "--restore"), USAGE,
         "journal", bad_journal),
    # no network, an interrupted download, missing tools
    Case("pins-no-network-git", ("pins", "--workspace", "{ws}", "--pytorch-url",
                                 "git://127.0.0.1:{closed}/pytorch.git", "--torch-ref", "v2.5.0"), EXTERNAL,
         "127.0.0.1"),
    Case("pins-no-network-raw", ("pins", "--workspace", "{ws}", "--pytorch-url", "raw+http://127.0.0.1:{closed}",
                                 "--torch-ref", "v2.5.0", "--json"), EXTERNAL, "127.0.0.1", json=True),
    Case("setup-no-network", ("setup", "--workspace", "{ws}", "--python", "{py}", "--pytorch-url",
                              "git://127.0.0.1:{closed}/pytorch.git", "--triton-url",
                              "git://127.0.0.1:{closed}/triton.git", "--llvm-url",
                              "git://127.0.0.1:{closed}/llvm-project.git"), EXTERNAL, "127.0.0.1"),
    Case("pins-interrupted-download", ("pins", "--workspace", "{ws}", "--pytorch-url", "raw+{trunc}",
                                       "--torch-ref", "v2.5.0"), EXTERNAL, "127.0.0.1"),
    Case("setup-without-cmake", (*SETUP_T,), TOOL, "cmake", path_without("cmake")),
    Case("pins-without-git", (*PINS, "--torch-ref", "v2.5.0"), TOOL, "git", path_without("git")),
    Case("run-missing-command", ("run", "--workspace", "{ws}", "--", "no-such-program-xyz", "--flag"), TOOL,
         "no-such-program-xyz"),
    Case("docker-missing-engine", ("docker", "build", "--workspace", "{ws}", "--engine", "podman"), TOOL, "podman",
         path_without("podman", "docker", "buildah")),
    # the other commands' own inputs
    Case("doctor-unknown-check", ("doctor", "--workspace", "{ws}", "--check", "ptxas.arc"), USAGE, "did you mean"),
    Case("doctor-bad-arch", ("doctor", "--workspace", "{ws}", "--arch", "sm_banana", "--json"), USAGE, "sm_banana",
         json=True),
    Case("verify-bad-target", ("verify", "--workspace", "{ws}", "--python", "{py}", "--target", "cuda:abc"), USAGE,
         "cuda:abc"),
    Case("compile-bad-signature", ("compile", "{kernel}::add_kernel", "--signature", "x_ptr=*float99",
                                   "--target", "cuda:90", "--workspace", "{ws}", "--python", "{tpy}"), USAGE,
         "float99", both(kernel_file, real_triton)),
    Case("compile-missing-file", ("compile", "{tmp}/nothing here.py::k", "--signature", "n=i32", "--target",
                                  "cuda:90", "--workspace", "{ws}", "--python", "{tpy}"), USAGE, "does not exist",
         real_triton),
    Case("compile-bad-target", ("compile", "{kernel}::add_kernel", "--signature",
                                "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32", "--target", "cuda:banana",
                                "--workspace", "{ws}", "--python", "{tpy}", "--json"), USAGE, "cuda:banana",
         both(kernel_file, real_triton),
         json=True),
    Case("compile-incomplete-triton", ("compile", "{kernel}::add_kernel", "--signature",
                                       "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32", "--constexpr", "BLOCK=64",
                                       "--target", "cuda:90", "--out", "{out}", "--workspace", "{ws}",
                                       "--python", "{py}"), EXTERNAL, "is incomplete", kernel_file),
    Case("verify-without-torch", ("verify", "--workspace", "{ws}", "--python", "{py}"), TOOL, "torch"),
    Case("cache-prune-no-rule", ("cache", "prune", "--dir", "{cache}", "--workspace", "{ws}"), USAGE, "rule",
         cache_dir),
    Case("cache-prune-bare-number", ("cache", "prune", "--older-than", "7", "--dir", "{cache}", "--workspace", "{ws}"),
         USAGE, "7", cache_dir),
    Case("cache-show-unknown-entry", ("cache", "show", "nosuchkernel", "--dir", "{cache}", "--workspace", "{ws}"),
         USAGE, "nosuchkernel", cache_dir),
    Case("env-bad-shell", ("env", "--workspace", "{ws}", "--shell", "tcsh"), USAGE, "tcsh"),
    Case("env-bad-backend", ("env", "--workspace", "{ws}", "--dump-ir", "--backend", "cuda"), USAGE, "cuda"),
    Case("run-no-command", ("run", "--workspace", "{ws}"), USAGE, "command"),
    Case("run-dump-dir-not-empty", ("run", "--workspace", "{ws}", "--dump-ir", "--dump-dir", "{dumps}", "--",
                                    "true"), USAGE, "not empty", dump_dir_in_use),
    Case("docker-bad-engine", ("docker", "build", "--workspace", "{ws}", "--engine", "lxc"), USAGE, "lxc"),
]


def test_at_least_thirty_cases_and_every_command() -> None:
    assert len(CASES) >= 30
    commands = {c.argv[0] for c in CASES}
    assert commands >= {"config", "pins", "purge", "setup", "build", "doctor", "verify", "compile", "cache", "env",
                        "run", "docker"}
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.fixture
def scene(tmp_path: Path, world: World, target_venv: Path) -> Any:
    tmp = tmp_path / ODD
    tmp.mkdir()
    ws = tmp / "ws"
    (ws / "logs").mkdir(parents=True)  # a workspace tritondev has used before
    (ws / "state").mkdir()
    (ws / "state" / "lock").touch()
    restore_target_venv(target_venv)
    py = target_venv / "bin" / "python"
    fields = {
        "tmp": str(tmp), "ws": str(ws), "py": str(py), "mirror": str(world.git_root),
        "T": world.triton_commits["main"], "closed": str(closed_port()),
    }
    s = Scene(tmp=tmp, ws=ws, py=py, venv=target_venv, world=world, fields=fields)
    yield s
    for item in s.keep:
        if isinstance(item, SmallFs):
            item.unmount()
        else:
            item.close()


def _check_output(case: Case, proc: subprocess.CompletedProcess[str]) -> None:
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


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, scene: Scene, cli: Any, truncating_server: TruncatingServer) -> None:
    if case.needs_mount and not can_mount():
        pytest.skip("needs root and mount(8) for a real full or read-only filesystem")
    scene.fields["trunc"] = truncating_server.base_url
    if case.prepare is not None:
        case.prepare(scene)
    argv = [part.format(**scene.fields) for part in case.argv]
    roots = [scene.ws, scene.venv, *scene.roots]
    before = snapshot(*roots)
    proc = cli(*argv, env=scene.env, cwd=scene.tmp, timeout=300)
    after = snapshot(*roots)
    _check_output(case, proc)
    logs = str(scene.ws / "logs") + os.sep
    changes = [c for c in diff(before, after) if not (c.startswith("added ") and c[len("added "):].startswith(logs))]
    assert changes == [], f"{case.id} changed the disk:\n" + "\n".join(changes)
    for path in scene.absent:
        assert not path.exists(), f"{case.id} created {path}"


READ_ONLY = [
    ("config", "show", "--workspace", "{newws}"),
    ("pins", "--workspace", "{newws}", "--mirror", "{mirror}", "--torch-ref", "v2.12.1", "--json"),
    ("doctor", "--workspace", "{newws}", "--python", "{py}", "--json"),
    ("doctor", "--workspace", "{newws}", "--python", "{py}", "--fix", "--dry-run", "--check", "packages"),
    ("verify", "--workspace", "{newws}", "--python", "{py}"),
    ("cache", "ls", "--workspace", "{newws}", "--python", "{py}"),
    ("env", "--workspace", "{newws}", "--dump-ir"),
    ("setup", "--workspace", "{newws}", "--python", "{py}", "--mirror", "{mirror}", "--triton-commit", "{T}",
     "--dry-run"),
    ("purge", "--workspace", "{newws}", "--python", "{py}", "--dry-run"),
    ("docker", "build", "--workspace", "{newws}", "--engine", "podman", "--dry-run"),
]


@pytest.mark.parametrize("argv", READ_ONLY, ids=[" ".join(a[:2]) + (" --dry-run" if "--dry-run" in a else "")
                                                 for a in READ_ONLY])
def test_reading_and_dry_runs_change_nothing(argv: tuple[str, ...], scene: Scene, cli: Any) -> None:
    """Commands that only read, and every --dry-run, leave the disk as it was: not even the workspace
    folder is created; the target environment and HOME are untouched (whatever their exit code)."""
    new_workspace(scene)
    home = scene.tmp.parent / "home"  # the cli fixture's HOME: ~/.cache, ~/.triton must stay as they were
    roots = [scene.venv, scene.tmp, home]
    before = snapshot(*roots)
    proc = cli(*[part.format(**scene.fields) for part in argv], cwd=scene.tmp, timeout=300)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in (0, 1, 3), proc.stderr[-3000:]  # 1: doctor's findings, 3: verify without torch
    assert diff(before, snapshot(*roots)) == []
    assert not Path(scene.fields["newws"]).exists(), f"{argv[0]} created the workspace"
