"""What the tests of one run share, across pytest-xdist's worker processes: a run-wide folder, things
made once in it under a file lock, and a warm ccache for builds that only need *a* build.

`./shell/test` runs the integration tier in several worker processes (pytest-xdist, one test file at a
time per worker). A session fixture is then made once per worker, unless it goes through `made_once`:
the first worker to ask makes it (the others wait on the lock) and every worker gets the same value,
read back from a pickle. Only for things tests treat as read-only (the test world, the mini LLVM
build, real IR dumps): a worker may be reading it while another test runs.

The run-wide folder is the run's pytest base folder (`/tmp/pytest-of-<user>/pytest-<n>`): each worker's
own base folder is a child of it, so it is removed with the rest of the run's temporary files, and two
runs at once (two copies of the suite on one machine) never share it.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

# Set once per process by the session fixture `run_folder` (tests/world/fixtures.py), for helpers that
# are called without pytest's fixtures at hand (tests/integration/build/harness.py's base_env).
_RUN_FOLDER: list[Path] = []


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run shares (the run's own base folder without xdist)."""
    base = factory.getbasetemp()
    folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    if not _RUN_FOLDER:
        _RUN_FOLDER.append(folder)
    return folder


def current_run_folder() -> Path | None:
    """The run-wide folder once a test session has started in this process, else None (a benchmark)."""
    return _RUN_FOLDER[0] if _RUN_FOLDER else None


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` (created if missing), held while the block runs; released on exit,
    and by the kernel if the process dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], T]) -> T:
    """`make(folder)` run once per test run for `name`, whichever worker asks first; its (picklable)
    value for every worker.

    `folder` (empty, under the run-wide folder) is where `make` puts what it builds. A `make` that
    raised leaves nothing behind: the next worker to ask tries again, and fails the same way, in its own
    test. The value must hold no process state (servers, open files): start those per worker from it.
    """
    shared = run_folder(factory) / "shared"
    folder = shared / name
    done = shared / f"{name}.pickle"
    with locked(shared / f"{name}.lock"):
        if done.is_file():
            value: T = pickle.loads(done.read_bytes())
            return value
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        value = make(folder)
        partial = done.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(value))
        partial.replace(done)
        return value


# ccache: compile results keyed on the compile command with paths under the base folder made relative,
# so that a workspace anywhere in the run hits what another built (CCACHE_NOHASHDIR: the build folder,
# which debug information names, is left out of the key).
WARM_CCACHE = "ccache"


def warm_ccache() -> Path:
    """The run's shared ccache folder, for builds whose test does not count compilations."""
    folder = current_run_folder()
    if folder is None:
        raise RuntimeError("warm_ccache() is for tests (the run-wide folder is set by the `run_folder` fixture)")
    return folder / "shared" / WARM_CCACHE


def ccache_variables(ccache_dir: Path) -> dict[str, str]:
    """CCACHE_* for a build using `ccache_dir`: the run's warm cache also gets the base folder and
    NOHASHDIR that let workspaces in other folders share its results; any other folder is private to
    the test, and tritondev's own defaults apply."""
    variables = {"CCACHE_DIR": str(ccache_dir)}
    folder = current_run_folder()
    if folder is not None and ccache_dir == folder / "shared" / WARM_CCACHE:
        variables.update(CCACHE_BASEDIR=str(folder), CCACHE_NOHASHDIR="1")
    return variables
