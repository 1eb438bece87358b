"""shell/tritondev on a fresh checkout: creates its private venv, execs the CLI, rebuilds when stale, and
deletes no folder but its own.

Every build here is real (python -m venv, pip install -e from this machine's package index), so the
tests that rebuild are few and share one checkout.
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.environ import child_environ
from tests.support.snapshot import diff, snapshot
from tests.support.terminal import read_until_closed

REPO = Path(__file__).resolve().parents[3]
PYENV = Path("/root/.pyenv/versions")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tracked files, as a fresh clone would have them."""
    dest = tmp_path_factory.mktemp("clone") / "tritondev"
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src = REPO / os.fsdecode(name)
        if src.is_file():
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    return dest


def _env(**extra: str) -> dict[str, str]:
    env = child_environ()
    env.update(extra)
    return env


def launch(checkout: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(checkout / "shell/tritondev"), *args], capture_output=True, text=True, env=_env(**extra), timeout=900
    )


def launch_in_a_terminal(checkout: Path, *args: str, **extra: str) -> tuple[int, str]:
    """The launcher with stderr on a real pseudo-terminal: (exit status, what the terminal showed)."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [str(checkout / "shell/tritondev"), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=child,
        env=_env(TERM="xterm", **extra),
    )
    os.close(child)
    shown = read_until_closed(main)
    return proc.wait(timeout=900), shown


def compiled(module: Path) -> bool:
    """Whether Python has a compiled copy of `module` (written by whoever compiled it, for this Python)."""
    return any((module.parent / "__pycache__").glob(f"{module.stem}.cpython-*.pyc"))


@pytest.mark.slow
def test_first_run_creates_private_venv_and_runs(checkout: Path) -> None:
    """Under PYTHONDONTWRITEBYTECODE (Python keeps no compiled module) the first run compiles tritondev and
    its packages once, so that no later command compiles them again."""
    result = launch(checkout, "--help", PYTHONDONTWRITEBYTECODE="1")
    assert result.returncode == 0, result.stderr
    assert "config" in result.stdout
    assert (checkout / ".venv-tool/bin/tritondev").exists()
    # In a pipe: what happens (and why), each step with its time when done, no spinner, no pip output.
    lines = result.stderr.splitlines()
    assert "\r" not in result.stderr, result.stderr
    assert lines[0].startswith("tritondev: preparing its own environment") and "(first use; Python 3." in lines[0]
    assert lines[1].startswith("tritondev:   creating the venv: done in "), lines
    assert lines[-3].startswith("tritondev:   installing tritondev's dependencies: done in "), lines
    compiling = "tritondev:   compiling its modules ahead (PYTHONDONTWRITEBYTECODE is set): done in "
    assert lines[-2].startswith(compiling), lines
    assert lines[-1].startswith("tritondev: ready in ") and len(lines) <= 6, lines
    (site,) = (checkout / ".venv-tool/bin").resolve().parent.glob("lib/python3*/site-packages")
    assert compiled(checkout / "bootstrap/cli.py") and compiled(site / "typer/main.py")


def test_second_run_reuses_venv_and_passes_exit_codes(checkout: Path) -> None:
    venv_python = checkout / ".venv-tool/bin/python"
    before = venv_python.stat().st_ino
    result = launch(checkout, "config", "show", "--workspace", "/proc/definitely/not")
    assert "preparing" not in result.stderr
    assert result.returncode == 0
    bad = launch(checkout, "no-such-command")
    assert bad.returncode == 2
    assert venv_python.stat().st_ino == before


def test_a_link_to_the_launcher_finds_its_checkout(checkout: Path, tmp_path: Path) -> None:
    """`ln -s <checkout>/shell/tritondev ~/.local/bin/tritondev`, as the README says: the link runs the
    checkout's own venv, from any folder."""
    link = tmp_path / "bin" / "tritondev"
    link.parent.mkdir()
    link.symlink_to(checkout / "shell" / "tritondev")
    result = subprocess.run(
        [str(link), "--version"], capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=900
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert not (tmp_path / ".venv-tool").exists() and not (tmp_path / "bin" / ".venv-tool").exists()


def test_the_launchers_own_variables_are_accepted_by_the_cli(checkout: Path) -> None:
    """TRITONDEV_TOOL_VENV and TRITONDEV_BOOTSTRAP_PYTHON are read by the launcher and passed on in the
    environment: the CLI must not call them unknown settings."""
    result = launch(
        checkout,
        "config",
        "show",
        "--workspace",
        "/proc/definitely/not",
        TRITONDEV_TOOL_VENV=str(checkout / ".venv-tool"),
        TRITONDEV_BOOTSTRAP_PYTHON="python3",
    )
    assert result.returncode == 0, result.stderr
    assert "unknown environment variable" not in result.stderr


@pytest.mark.slow
def test_changed_pyproject_rebuilds_venv(checkout: Path) -> None:
    pyproject = checkout / "pyproject.toml"
    original = pyproject.read_text()
    pyproject.write_text(original + "\n# changed\n")
    try:
        result = launch(checkout, "--version", PYTHONDONTWRITEBYTECODE="")
        assert result.returncode == 0, result.stderr
        assert "preparing its own environment" in result.stderr and "(pyproject.toml changed;" in result.stderr
        # Python writes compiled modules itself as it imports them: no step ahead for that.
        assert "compiling" not in result.stderr, result.stderr
        again = launch(checkout, "--version")
        assert again.returncode == 0 and again.stderr == "", again.stderr
    finally:
        pyproject.write_text(original)


def _two_pythons() -> tuple[Path, Path]:
    """Two real interpreters >= 3.10 with different files (the launcher tells them apart without running them)."""
    found = [
        p
        for p in (
            PYENV / "3.11.7/bin/python3.11",
            Path("/usr/bin/python3.11"),
            PYENV / "3.12.1/bin/python3.12",
            PYENV / "3.10.13/bin/python3.10",
        )
        if p.is_file()
    ]
    distinct = [p for i, p in enumerate(found) if all(p.stat().st_mtime != q.stat().st_mtime for q in found[:i])]
    if len(distinct) < 2:
        pytest.skip("needs two Python >= 3.10 interpreters with different modification times")
    return distinct[0], distinct[1]


@pytest.mark.slow
def test_an_empty_folder_of_the_users_becomes_the_venv_and_another_python_rebuilds_it(
    checkout: Path, tmp_path: Path
) -> None:
    """TRITONDEV_TOOL_VENV may name an empty folder; TRITONDEV_BOOTSTRAP_PYTHON a link to an interpreter.
    When the link is pointed at another interpreter (what an upgrade of python3 does), the venv is
    rebuilt, and said so. On a terminal the first build shows a spinner with the elapsed time."""
    first, second = _two_pythons()
    venv = tmp_path / "my venv"
    venv.mkdir()
    link = tmp_path / "bin" / "python3"
    link.parent.mkdir()
    link.symlink_to(first)
    variables = {"TRITONDEV_TOOL_VENV": str(venv), "TRITONDEV_BOOTSTRAP_PYTHON": str(link)}
    code, shown = launch_in_a_terminal(checkout, "--version", **variables)
    assert code == 0, shown
    assert "installing tritondev's dependencies" in shown and "\r" in shown, shown
    assert "ready" in shown and (venv / "bin/tritondev").is_file()
    assert launch(checkout, "--version", **variables).stderr == ""
    link.unlink()
    link.symlink_to(second)
    rebuilt = launch(checkout, "--version", **variables)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "the interpreter changed" in rebuilt.stderr
    assert os.path.realpath(venv / "bin/python") == os.path.realpath(second)


def _env_in_use(venv: Path) -> str:
    return (venv / ".tritondev-launcher" / "current").read_text().strip()


def _other_pythons(tmp_path: Path) -> list[Path]:
    """Folders whose python3 is not the first on PATH's, as users' PATHs have them: an activated venv
    (its python3 a link to the same interpreter) and, where there is one, another interpreter."""
    activated = tmp_path / "activated"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(activated)], check=True)
    folders = [activated / "bin"]
    for other in (Path("/usr/bin/python3"), PYENV / "3.12.1/bin/python3.12", PYENV / "3.10.13/bin/python3.10"):
        if other.is_file() and os.path.realpath(other) != os.path.realpath(sys.executable):
            folder = tmp_path / f"other-{len(folders)}"
            folder.mkdir()
            (folder / "python3").symlink_to(other)
            folders.append(folder)
    return folders


def test_another_python3_on_path_keeps_the_venv(checkout: Path, tmp_path: Path) -> None:
    """Activate a venv, run, deactivate, run: the venv stays (it keeps the interpreter it was built with
    while that exists); another python3 first on PATH does not rebuild it either."""
    launch(checkout, "--version")
    venv_python = checkout / ".venv-tool" / "bin" / "python"
    before = os.lstat(venv_python).st_ino
    for folder in _other_pythons(tmp_path):
        path = f"{folder}{os.pathsep}{os.environ['PATH']}"
        result = launch(checkout, "--version", PATH=path, VIRTUAL_ENV=str(folder.parent))
        assert result.returncode == 0 and result.stderr == "", (folder, result.stderr)
        again = launch(checkout, "--version")
        assert again.returncode == 0 and again.stderr == "", again.stderr
    assert os.lstat(venv_python).st_ino == before


@pytest.mark.slow
def test_two_launchers_with_different_paths_at_once_both_run(checkout: Path, tmp_path: Path) -> None:
    """A rebuild (pyproject.toml changed) asked for by two launchers at once, each with another python3 first
    on PATH: one builds, the other waits and runs on what it built; both exit 0."""
    pyproject = checkout / "pyproject.toml"
    original = pyproject.read_text()
    folders = _other_pythons(tmp_path)
    pyproject.write_text(original + "\n# changed for two at once\n")
    try:
        procs = [
            subprocess.Popen(
                [str(checkout / "shell/tritondev"), "--version"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(PATH=f"{folder}{os.pathsep}{os.environ['PATH']}"),
            )
            for folder in (folders[0], folders[-1])
        ]
        outputs = [proc.communicate(timeout=900) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0 and out.startswith("tritondev "), err
        assert sum(err.count("preparing its own environment") for _, err in outputs) == 1, outputs
    finally:
        pyproject.write_text(original)


@pytest.mark.slow
def test_a_rebuild_never_deletes_the_env_a_running_command_uses(checkout: Path, tmp_path: Path) -> None:
    """A command running on the old env while a rebuild happens keeps it (a command started meanwhile once
    crashed with ModuleNotFoundError); the old env goes once no command uses it."""
    venv = checkout / ".venv-tool"
    launch(checkout, "--version")
    old = venv / _env_in_use(venv)
    gate = tmp_path / "gate"
    running = subprocess.Popen(
        [
            str(checkout / "shell/tritondev"),
            "run",
            "--workspace",
            str(tmp_path / "ws"),
            "--",
            "sh",
            "-c",
            f"while [ ! -e '{gate}' ]; do sleep 0.1; done",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    pyproject = checkout / "pyproject.toml"
    original = pyproject.read_text()
    try:
        deadline = time.monotonic() + 120  # until the command runs (on the old env, holding it)
        while running.poll() is None and not _holds(old, running.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _holds(old, running.pid), running.poll()
        pyproject.write_text(original + "\n# changed while a command runs\n")
        rebuilt = launch(checkout, "config", "show", "--workspace", str(tmp_path / "ws"))
        assert rebuilt.returncode == 0 and "pyproject.toml changed" in rebuilt.stderr, rebuilt.stderr
        assert venv / _env_in_use(venv) != old
        assert (old / "bin" / "tritondev").is_file()  # still there: the running command holds it
        gate.touch()
        _out, err = running.communicate(timeout=300)
        assert running.returncode == 0, err
        pyproject.write_text(original)
        launch(checkout, "--version")  # the next rebuild (or run) deletes what no command uses any more
        assert not old.exists()
    finally:
        gate.touch()
        pyproject.write_text(original)


def _holds(env: Path, pid: int) -> bool:
    """Does process `pid` hold the env's in-use file open (the launcher's shared lock is on it)?"""
    target = str(env / ".tritondev-env" / "in-use")
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == target for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


@pytest.mark.parametrize(
    "kind", ["user-files", "link-to-user-folder", "non-venv-folder", "a-file", "crafted-stamp-link", "stamp-is-a-link"]
)
def test_a_folder_of_the_users_is_never_deleted(checkout: Path, tmp_path: Path, kind: str) -> None:
    """TRITONDEV_TOOL_VENV pointing at anything but a new/empty folder or one the launcher made: exit 2,
    nothing removed or changed, not even a lock file beside it."""
    home = tmp_path / "home"
    mine = home / "projects"
    (mine / "src").mkdir(parents=True)
    (mine / "src" / "notes.txt").write_text("mine\n")
    (mine / "bin").mkdir()
    venv = mine
    if kind == "link-to-user-folder":
        venv = home / "link"
        venv.symlink_to(mine)
    elif kind == "non-venv-folder":
        # Looks like a venv (bin/tritondev, pyvenv.cfg) but was not made by the launcher.
        (mine / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (mine / "bin" / "tritondev").write_text("#!/bin/sh\necho not tritondev\n")
        (mine / "bin" / "tritondev").chmod(0o755)
    elif kind == "a-file":
        venv = mine / "src" / "notes.txt"
    elif kind in ("crafted-stamp-link", "stamp-is-a-link"):
        # A link to a real launcher stamp elsewhere (the folder, or the stamp file) does not make it ours.
        elsewhere = tmp_path / "elsewhere" / ".tritondev-launcher"
        elsewhere.mkdir(parents=True)
        (elsewhere / "stamp").write_text("tritondev-launcher-stamp 2\nstate=building\n")
        if kind == "crafted-stamp-link":
            (mine / ".tritondev-launcher").symlink_to(elsewhere)
        else:
            (mine / ".tritondev-launcher").mkdir()
            (mine / ".tritondev-launcher" / "stamp").symlink_to(elsewhere / "stamp")
    before = snapshot(home)
    result = launch(checkout, "--version", TRITONDEV_TOOL_VENV=str(venv))
    assert result.returncode == 2, result.stderr
    assert f"tritondev: error: {venv} " in result.stderr
    assert "fix: point TRITONDEV_TOOL_VENV at a new folder" in result.stderr
    assert diff(before, snapshot(home)) == []
    assert not Path(f"{venv}.lock").exists()


def test_a_python_older_than_3_10_is_one_line_naming_the_variable(checkout: Path, tmp_path: Path) -> None:
    old = PYENV / "3.9.18/bin/python3.9"
    if not old.is_file():
        pytest.skip("needs a Python 3.9")
    venv = tmp_path / "venv"
    result = launch(checkout, "--version", TRITONDEV_TOOL_VENV=str(venv), TRITONDEV_BOOTSTRAP_PYTHON=str(old))
    assert result.returncode == 3
    assert f"tritondev needs Python >= 3.10; {old} is 3.9.18" in result.stderr
    assert "fix: TRITONDEV_BOOTSTRAP_PYTHON=" in result.stderr
    assert not venv.exists()


@pytest.mark.slow
def test_no_package_index_is_one_line_naming_pip_index_url(checkout: Path, tmp_path: Path) -> None:
    """No index reachable (pip's config files off, the index a closed port): one line that says what is
    needed, never pip's own output; nothing left behind."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    venv = tmp_path / "venv"
    env = {k: v for k, v in _env().items() if not k.startswith("PIP_")}
    env.update(
        TRITONDEV_TOOL_VENV=str(venv),
        PIP_CONFIG_FILE=os.devnull,
        PIP_INDEX_URL=f"http://127.0.0.1:{port}/simple",
        PIP_RETRIES="0",
        PIP_TIMEOUT="5",
    )
    started = time.monotonic()
    result = subprocess.run(
        [str(checkout / "shell/tritondev"), "--version"], capture_output=True, text=True, env=env, timeout=900
    )
    assert result.returncode == 4, result.stderr
    lines = [line for line in result.stderr.splitlines() if ": done in " not in line]
    assert lines[0].startswith("tritondev: preparing its own environment"), lines
    assert lines[1] == (
        f"tritondev: error: installing tritondev's dependencies into {venv} needs a Python package "
        "index, and pip reached none"
    ), lines
    assert lines[2].startswith("tritondev: fix: set PIP_INDEX_URL to a reachable index (a mirror) or PIP_FIND_LINKS"), (
        lines
    )
    assert len(lines) == 3 and "Traceback" not in result.stderr
    assert not venv.exists()
    assert time.monotonic() - started < 600


if sys.platform != "linux":  # pragma: no cover
    pytestmark = pytest.mark.skip("the launcher is a bash script for Linux")
