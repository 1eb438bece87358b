"""Faults: Ctrl-C and kill -9 at random moments, two commands at once, a build tool that crashes.

After each fault a plain re-run must finish correctly, and nothing of the user's may be lost: the
checkouts stay at their pins with nothing modified, a distribution the user installed in the target
environment stays, a file of the user's in the workspace stays, and what purge removed can be put back
with `purge --restore`.

`kill -9` of setup is covered by tests/integration/build/test_fault.py; here: SIGINT of setup, both signals for
purge. Signals go to the whole process group, as a terminal's Ctrl-C does (ninja and pip get it too).
The seed is printed; TRITONDEV_FAULT_SEED_FOR_TESTS repeats a run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.build.harness import base_env, checkout_state, installed_triton, setup_args, tritondev
from tests.integration.guarantees.conftest import ODD, Wheels, copy_venv, installed, pip, stale_kernel_cache
from tests.support.cli import tritondev_argv
from tests.support.run_shared import warm_ccache
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

LABEL = "root-json"


# Interrupted (130), or finished (0) when the Ctrl-C landed after the outcome was decided: never death
# by the signal itself (-2), even in the interpreter's shutdown (tests/integration/core/test_ctrl_c.py).
INTERRUPTED = (130,)


# Read when the module is imported: the clean_env fixture removes every TRITONDEV_* variable before a
# test body runs.
_GIVEN_SEED = int(os.environ.get("TRITONDEV_FAULT_SEED_FOR_TESTS", "0") or 0)


def _seed() -> int:
    return _GIVEN_SEED or random.randrange(1 << 30)


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        tritondev_argv(*argv),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _interrupt(proc: subprocess.Popen[str], delay: float, sig: int) -> tuple[bool, str]:
    """Send `sig` to the process group after `delay` s (unless it finished); (was it signalled, stderr)."""
    try:
        proc.wait(timeout=delay)
        signalled = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, sig)
        signalled = True
    try:
        _, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:  # pragma: no cover - a hang is the failure being looked for
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        raise AssertionError(f"tritondev did not stop within 180 s of signal {sig}:\n{err[-3000:]}") from None
    if sig == signal.SIGKILL and signalled:
        # whatever the group left running (a pip or compiler mid-way) is gone too, as after a crash
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return signalled, err


# -- setup on the test world, in a workspace whose path has spaces and non-ASCII letters -----------------


@dataclass
class Built:
    world: World
    ws: Path
    env: dict[str, str]
    build_type: list[str]
    seconds: float  # how long the first full setup took
    user_file: Path
    wheels: Wheels

    def args(self, *extra: str) -> list[str]:
        return setup_args(self.world, self.ws, LABEL, "--build-type", self.build_type[0], "--skip-verify", *extra)

    @property
    def python(self) -> Path:
        return self.ws / "venv" / "bin" / "python"

    def toggle_build_type(self) -> None:
        self.build_type[0] = "Debug" if self.build_type[0] == "Release" else "Release"

    def remove_llvm_build(self) -> None:
        for build in (self.ws / "build" / "llvm").iterdir():
            shutil.rmtree(build)

    def assert_intact(self, history: list[str]) -> None:
        """Installed from the pinned checkout, built against the pinned LLVM; the user's things still there."""
        facts = installed_triton(self.python, self.ws)
        sha = self.world.triton_commits[LABEL]
        assert facts["version"] == f"3.8.0+git{sha[:8]}", history
        assert Path(facts["file"]).resolve().parent == (self.ws / "src/triton/python/triton").resolve(), history
        assert facts["llvm_commit"] == self.world.llvm_commit, history
        assert facts["build_type"] == self.build_type[0], history  # what the built library reports
        assert checkout_state(self.ws / "src/triton") == (sha, ""), history
        assert checkout_state(self.ws / "src/llvm-project") == (self.world.llvm_commit, ""), history
        assert "unrelated-dist" in installed(self.python), history
        assert self.user_file.read_text() == "my notes\n", history


@pytest.fixture(scope="module")
def built(world: World, tmp_path_factory: pytest.TempPathFactory, wheels: Wheels) -> Built:
    root = tmp_path_factory.mktemp("guarantee-faults")
    ws = root / f"workspace {ODD}"
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=warm_ccache())
    build_type = ["Release"]
    built = Built(world, ws, env, build_type, 0.0, ws / "my notes é.txt", wheels)
    started = time.monotonic()
    first = tritondev(*built.args(), env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    built.seconds = time.monotonic() - started
    # the user's own things: a distribution in the environment, a file in the workspace
    pip(built.python, "install", "-q", "--no-deps", "--no-index", str(wheels.unrelated))
    built.user_file.write_text("my notes\n")
    return built


def test_sigint_during_setup_then_rerun(built: Built) -> None:
    seed = _seed()
    rng = random.Random(seed)
    history = [f"seed {seed} (TRITONDEV_FAULT_SEED_FOR_TESTS), first setup {built.seconds:.1f}s"]
    # what to give setup to do before the Ctrl-C, and about how long that takes (share of a full setup)
    kinds: dict[str, tuple[Callable[[], None], float]] = {
        "rebuild triton": (built.toggle_build_type, 0.35),
        "rebuild llvm": (built.remove_llvm_build, 0.5),
        "nothing": (lambda: None, 0.05),
    }
    plan = ["rebuild triton", "rebuild llvm", "rebuild triton", "nothing"]
    rng.shuffle(plan)
    for i, kind in enumerate(plan):
        prepare, share = kinds[kind]
        prepare()
        delay = rng.uniform(0.3, max(0.6, built.seconds * share))
        proc = _start(built.args(), built.env)
        signalled, err = _interrupt(proc, delay, signal.SIGINT)
        history.append(
            f"{i}: {kind}, Ctrl-C at {delay:.2f}s -> exit {proc.returncode}{'' if signalled else ' (had finished)'}"
        )
        assert "Traceback" not in err, "\n".join(history) + "\n" + err[-3000:]
        if signalled:
            assert proc.returncode in (0, *INTERRUPTED), "\n".join(history) + "\n" + err[-3000:]
            if proc.returncode == 130:
                assert "interrupted" in err, err[-2000:]
        started = time.monotonic()
        rerun = tritondev(*built.args(), env=built.env)
        history.append(f"   re-run {time.monotonic() - started:.1f}s -> exit {rerun.returncode}")
        assert rerun.returncode == 0, "\n".join(history) + "\n" + rerun.stderr[-3000:]
        built.assert_intact(history)
    print("\n".join(history))


def _crashing_tool(folder: Path, name: str, marker: Path) -> Path:
    """`name` on PATH that, once, starts the real tool on the build, kills it mid-way and then dies of SIGSEGV
    itself; afterwards (and for version or tool queries) it is the real tool."""
    real = shutil.which(name)
    assert real is not None
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(
        "#!/bin/bash\n"
        f'case " $* " in *" --version "*|*" -t "*) exec "{real}" "$@";; esac\n'
        # only the build itself (`ninja -C <build>`), not CMake's try-compiles during configure
        f'if [ ! -e "{marker}" ] && [[ " $* " == *" -C "* ]]; then\n'
        f'  : > "{marker}"\n'
        f'  "{real}" "$@" & child=$!\n'
        "  sleep 0.7\n"
        "  kill -9 $child 2>/dev/null\n"
        "  kill -SEGV $$\n"
        "fi\n"
        f'exec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    return folder


def test_build_tool_crash_then_rerun(built: Built, tmp_path: Path) -> None:
    history = ["ninja crashes during the LLVM build"]
    built.remove_llvm_build()
    marker = tmp_path / "crashed"
    wrappers = _crashing_tool(tmp_path / f"bin {ODD}", "ninja", marker)
    env = {**built.env, "PATH": f"{wrappers}{os.pathsep}{built.env['PATH']}"}
    crashed = tritondev(*built.args(), env=env)
    assert marker.exists(), "the crashing ninja never ran"
    assert "Traceback" not in crashed.stdout + crashed.stderr, crashed.stderr[-3000:]
    assert crashed.returncode == 4, crashed.stderr[-3000:]
    assert "ninja" in crashed.stderr and ".log" in crashed.stderr, crashed.stderr[-3000:]
    history.append("crashed run: exit 4")
    rerun = tritondev(*built.args(), env=built.env)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    built.assert_intact(history)


def _wait_for_lock(ws: Path, proc: subprocess.Popen[str], timeout: float = 600) -> str:
    lock = ws / "state" / "lock"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = lock.read_text() if lock.exists() else ""
        if text.startswith("pid"):
            return text.strip()
        assert proc.poll() is None, "setup finished before it was seen holding the lock"
        time.sleep(0.05)
    raise AssertionError("setup never took the workspace lock")


def _held_tool(folder: Path, name: str, release: Path) -> Path:
    """`name` on PATH that, before the build (`-C DIR`; CMake's try-compiles are quick), waits until the
    file `release` exists: a command that certainly holds the lock until the test lets it go, however
    slow the machine (an hour at most, against a test that never lets go)."""
    real = shutil.which(name)
    assert real is not None
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(
        "#!/bin/bash\n"
        f'case " $* " in *" --version "*|*" -t "*) exec "{real}" "$@";; esac\n'
        f'if [[ " $* " == *" -C "* ]]; then\n'
        f'  for _ in $(seq 36000); do [ -e "{release}" ] && break; sleep 0.1; done\n'
        "fi\n"
        f'exec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    return folder


def test_two_commands_at_once(built: Built, tmp_path: Path) -> None:
    built.remove_llvm_build()  # setup rebuilds LLVM, with a ninja slow enough for the others to try meanwhile
    release = tmp_path / "release"
    slow = _held_tool(tmp_path / f"bin {ODD}", "ninja", release)
    before = installed(built.python)
    # a stale kernel cache gives doctor --fix something to do, so it needs the lock too
    cache = stale_kernel_cache(tmp_path / f"cache {ODD}")
    doctor_env = {**built.env, "TRITON_CACHE_DIR": str(cache)}
    first = _start(built.args(), {**built.env, "PATH": f"{slow}{os.pathsep}{built.env['PATH']}"})
    try:
        holder = _wait_for_lock(built.ws, first)
        for argv in (
            ["purge", "--workspace", str(built.ws), "--python", str(built.python)],
            built.args(),
            ["build", "--workspace", str(built.ws)],
            ["doctor", "--workspace", str(built.ws), "--python", str(built.python), "--fix", "--check", "cache"],
        ):
            second = tritondev(*argv, env=doctor_env if argv[0] == "doctor" else built.env)
            assert second.returncode == 6, f"{argv[0]}: exit {second.returncode}\n{second.stderr[-2000:]}"
            assert "is locked" in second.stderr and holder.split()[1] in second.stderr, second.stderr
            # Said at once: the holder still waits for the test to let its build go on, so the refusal did
            # not wait for the lock (however long this took on a loaded machine).
            assert first.poll() is None, "setup finished while the others tried: nothing was proven"
        assert installed(built.python) == before  # the purge that was refused removed nothing
        assert (cache / "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST").is_dir()  # nor did doctor --fix
    finally:
        release.touch()
        _, err = first.communicate(timeout=900)
    assert first.returncode == 0, err[-3000:]
    built.assert_intact(["setup that held the lock"])


# -- purge, interrupted ----------------------------------------------------------------------------------


@pytest.fixture
def purge_env(
    base_venv: Path, tmp_path: Path, clean_env: dict[str, str]
) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    py = copy_venv(base_venv, tmp_path / f"venv {ODD}")
    ws = tmp_path / f"ws {ODD}"
    env = {**clean_env, "PYTHONPATH": str(Path(__file__).resolve().parents[3]), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    yield py, ws, env


def _listing(folders: list[Path]) -> list[str]:
    """Every file under `folders`, for a failure's message."""
    return [str(p) for folder in folders for p in sorted(folder.rglob("*"))]


def _owners(py: Path) -> set[str]:
    return {name for name in installed(py) if name in ("triton", "pytorch-triton")}


def _imports_triton(py: Path) -> bool:
    return subprocess.run([str(py), "-I", "-c", "import triton"], capture_output=True).returncode == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_purge_interrupted_at_random_moments(
    sig: int, purge_env: tuple[Path, Path, dict[str, str]], wheels: Wheels
) -> None:
    py, ws, env = purge_env
    seed = _seed()
    rng = random.Random(seed)
    purge = ["purge", "--workspace", str(ws), "--python", str(py)]
    history = [f"seed {seed} (TRITONDEV_FAULT_SEED_FOR_TESTS), signal {sig}"]
    pip(py, "install", "-q", "--no-deps", "--no-index", str(wheels.unrelated))

    def install_owners() -> None:
        # both names own triton/, the second installed over the first, as users end up with
        pip(py, "install", "-q", "--no-deps", "--no-index", str(wheels.triton))
        pip(py, "install", "-q", "--no-deps", "--no-index", str(wheels.pytorch_triton))

    install_owners()
    for i in range(3):
        if _owners(py) != {"triton", "pytorch-triton"}:
            install_owners()
        # The scan takes most of a purge. The journal is written just before the removal starts: wait for
        # it, then strike at a random moment of the removal (pip uninstall rounds, leftovers, the check).
        journal_file = ws / "state" / "purge-journal.json"
        mark = journal_file.stat().st_mtime_ns if journal_file.exists() else 0
        proc = _start(purge, env)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if journal_file.exists() and journal_file.stat().st_mtime_ns != mark:
                break
            time.sleep(0.005)
        delay = rng.uniform(0.0, 0.9)
        signalled, err = _interrupt(proc, delay, sig)
        history.append(
            f"{i}: signal {delay:.2f}s after the journal -> exit {proc.returncode}"
            f"{'' if signalled else ' (had finished)'}, left {sorted(_owners(py))}"
        )
        assert "Traceback" not in err, "\n".join(history) + "\n" + err
        if signalled and sig == signal.SIGINT:
            assert proc.returncode in (0, *INTERRUPTED), "\n".join(history) + "\n" + err
        rerun = tritondev(*purge, env=env)
        assert rerun.returncode == 0, "\n".join(history) + "\n" + rerun.stderr[-3000:]
        # purged for good, and only Triton: the unrelated distribution is untouched
        assert _owners(py) == set(), history
        assert not _imports_triton(py), history
        assert "unrelated-dist" in installed(py), history
        site = Path(
            subprocess.run(
                [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        stashes = [p for p in site.iterdir() if p.name.startswith("~")]
        assert not stashes, "\n".join([*history, *_listing(stashes), rerun.stdout[-3000:]])  # no pip stash left
        journal = json.loads((ws / "state" / "purge-journal.json").read_text())
        assert journal, history
        # nothing is lost: what the purges removed comes back
        restored = tritondev("purge", "--workspace", str(ws), "--python", str(py), "--restore", env=env)
        assert restored.returncode == 0, "\n".join(history) + "\n" + restored.stderr[-3000:]
        assert _owners(py) == {"triton", "pytorch-triton"}, "\n".join(history) + "\n" + restored.stderr[-3000:]
        assert "unrelated-dist" in installed(py), history
    print("\n".join(history))
