"""Test-wide fixtures: the GPU marker, and helpers that run the real CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

import pytest
from hypothesis import HealthCheck, settings

from tests.support.cli import tritondev_argv
from tests.support.environ import dropped

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing has it from Python 3.11; only mypy reads it here

REPO = Path(__file__).resolve().parents[1]

# No property test may depend on the machine being idle: hypothesis' default 200 ms deadline per example
# and its "data generation is slow" health check fail a correct test on a loaded machine (two suites on
# two cores). Examples are bounded by the test timeout instead.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")
# `pytest --hypothesis-profile=soak`: every property test with 50 times the examples, to look for the
# rare input the default 100 leave to chance.
settings.register_profile("soak", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

pytest_plugins = ["tests.world.fixtures"]

# The test world's templates are upstream-shaped files (the mini Triton's own python/test/ files import
# its `triton`): data copied into the world's repositories and run there by `tritondev test`, never
# tests of tritondev.
collect_ignore = ["world/templates", "perf/scale/templates"]


def _has_gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


HAS_GPU = _has_gpu()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not HAS_GPU:
        skip = pytest.mark.skip(reason="needs an NVIDIA GPU (nvidia-smi -L found none)")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
    if os.environ.get("PYTEST_XDIST_WORKER") and config.getvalue("dist") == "loadgroup":
        _slowest_files_first(items)


def _slowest_files_first(items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup` (./shell/test): whole files, slowest first (tests/support/parallel.py).
    Every worker sorts its collection alike, and xdist hands the files out in that order."""
    from tests.support.parallel import slowest_first

    paths = list(dict.fromkeys(item.nodeid.split("::", 1)[0] for item in items))
    groups = {}
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is not None:
            groups[item.nodeid.split("::", 1)[0]] = str(mark.args[0] if mark.args else mark.kwargs.get("name"))
    rank = slowest_first(paths, groups)
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])  # stable: a file keeps its order


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: PYTEST_XDIST_AUTO_NUM_WORKERS when set, else the CPUs this process may use, at least 2
    (an integration test spends much of its time waiting on the processes it started)."""
    given = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").strip()
    if given.isdigit():
        return int(given)
    return max(2, len(os.sched_getaffinity(0)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`--dist loadgroup`: a whole test file per worker at a time, or a whole xdist_group of files."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.support.parallel import FileScheduling

    return FileScheduling(config, log)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, str]]:
    """This process's environment without what tests.support.environ leaves out of a child's (tritondev's
    and Triton's variables, an active venv, the suite's own PYTEST_*), and a private HOME."""
    for var in list(os.environ):
        if dropped(var):
            monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    yield dict(os.environ)


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 600,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the real `tritondev` CLI in a subprocess (as users do), returning its output."""
    full_env = dict(os.environ if env is None else env)
    return subprocess.run(
        tritondev_argv(*args),
        capture_output=True,
        text=True,
        errors="surrogateescape",  # output for a terminal that is not UTF-8 (a latin-1 one) still reads
        env=full_env,
        cwd=cwd,
        timeout=timeout,
        input=input_text,
    )


class CliOptions(TypedDict, total=False):
    """What a `cli` fixture passes on to `run_cli` as it is."""

    cwd: Path | None
    timeout: float
    input_text: str | None


class Cli(Protocol):
    """The type of the `cli` fixture: `run_cli` with the test's environment and folder filled in."""

    def __call__(
        self, *args: str, env: dict[str, str] | None = None, **options: Unpack[CliOptions]
    ) -> subprocess.CompletedProcess[str]: ...


@pytest.fixture
def cli(clean_env: dict[str, str], tmp_path: Path) -> Cli:
    """`cli(*args, env=..., cwd=...)` runs tritondev with a clean environment; cwd defaults to tmp_path."""

    def _run(
        *args: str, env: dict[str, str] | None = None, **options: Unpack[CliOptions]
    ) -> subprocess.CompletedProcess[str]:
        merged = dict(clean_env)
        merged["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))
        if env:
            merged.update(env)
        options["cwd"] = options.get("cwd") or tmp_path
        return run_cli(*args, env=merged, **options)

    return _run
