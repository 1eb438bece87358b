"""What `tritondev test --install-requirements` installs and what stops a run without it: Triton's
python/test-requirements.txt read by pip-api (0.0.35) inside a real target interpreter, a Python 3.10 venv
while tritondev runs on another Python. Markers are judged for the target, `-r` includes followed, options
skipped, a version the specifier does not allow counts as missing; a malformed line or a FIFO in the
file's place is one error before anything runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.core.process.runner import Runner
from bootstrap.pipeline.testing.requirements import TEST_REQUIREMENTS, describe_missing, read_requirements

PYTHON_310 = Path("/root/.pyenv/versions/3.10.13/bin/python3.10")


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Python 3.10 venv (pip and setuptools only): another Python than tritondev's own."""
    if not PYTHON_310.is_file() or sys.version_info[:2] == (3, 10):
        pytest.skip("needs a Python 3.10 beside tritondev's own Python")
    venv = tmp_path_factory.mktemp("target") / "venv"
    subprocess.run([str(PYTHON_310), "-m", "venv", str(venv)], check=True)
    return venv / "bin" / "python"


def checkout_with(tmp_path: Path, text: str, **more: str) -> Path:
    checkout = tmp_path / "triton"
    (checkout / "python").mkdir(parents=True)
    (checkout / TEST_REQUIREMENTS).write_text(text)
    for name, content in more.items():
        (checkout / "python" / name).write_text(content)
    return checkout


def test_the_file_is_read_as_pip_reads_it_for_the_target(target: Path, tmp_path: Path) -> None:
    setuptools = subprocess.run(
        [str(target), "-c", "import setuptools; print(setuptools.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    checkout = checkout_with(
        tmp_path,
        "\n".join(
            [
                "# what Triton's tests need",
                "pip",
                "setuptools<1.0            # installed, in a version this does not allow",
                'tomli ; python_version < "3.11"',
                'colorama ; python_version >= "3.11"',
                "tritondev-no-such-package==1.0 \\",
                "    --hash=sha256:" + "0" * 64,
                "--index-url https://example.invalid/simple",
                "-r more-requirements.txt",
                "",
            ]
        ),
        **{"more-requirements.txt": "packaging\n"},
    )
    read = read_requirements(Runner(silent=True), target, checkout)
    by_name = {r.name: r for r in read.requirements}
    assert set(by_name) == {"pip", "setuptools", "tomli", "tritondev-no-such-package", "packaging"}  # no colorama
    assert by_name["pip"].satisfied and by_name["pip"].installed
    assert by_name["setuptools"].installed == setuptools and not by_name["setuptools"].satisfied
    assert by_name["packaging"].file == str(checkout / "python" / "more-requirements.txt")
    assert {r.name for r in read.missing} == {"setuptools", "tomli", "tritondev-no-such-package", "packaging"}
    assert f"setuptools<1.0 ({setuptools} installed)" in describe_missing(read.missing)


def test_without_the_file_the_tests_need_pytest(target: Path, tmp_path: Path) -> None:
    checkout = tmp_path / "triton"
    checkout.mkdir()
    read = read_requirements(Runner(silent=True), target, checkout)
    assert [(r.text, r.satisfied) for r in read.requirements] == [("pytest", False)]


def test_a_malformed_line_is_one_error_naming_it(target: Path, tmp_path: Path) -> None:
    checkout = checkout_with(tmp_path, "pytest\nnumpy=1.26\n")
    with pytest.raises(ConfigError) as failed:
        read_requirements(Runner(silent=True), target, checkout)
    assert f"{checkout / TEST_REQUIREMENTS}, line 2: 'numpy=1.26'" in failed.value.message
    assert "= is not a valid operator" in failed.value.message and failed.value.fix


def test_a_fifo_in_the_files_place_is_refused_without_reading_it(target: Path, tmp_path: Path) -> None:
    checkout = tmp_path / "triton"
    (checkout / "python").mkdir(parents=True)
    os.mkfifo(checkout / TEST_REQUIREMENTS)
    started = time.monotonic()
    with pytest.raises(ConfigError, match="is not a regular file"):
        read_requirements(Runner(silent=True), target, checkout)
    assert time.monotonic() - started < 60
