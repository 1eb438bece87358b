"""doctor on a CMake 4: Triton asks for cmake>=3.20,<4.0 (python/requirements.txt since 3.4)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.support.venvs import shared_venv


def test_cmake_4_is_a_warning_with_the_pin(cli: Cli, tmp_path: Path) -> None:
    python = shared_venv("cmake-4", ["cmake>=4,<5"])  # the real CMake 4 from the package index, kept per machine
    path = f"{python.parent}{os.pathsep}{os.environ['PATH']}"
    result = cli(
        "doctor", "--check", "toolchain.cmake", "--json", "--workspace", str(tmp_path / "ws"), env={"PATH": path}
    )
    assert result.returncode == 0, result.stderr
    check = checks_of(result.stdout)["toolchain.cmake"]
    assert check["status"] == "warn" and str(python.parent / "cmake") in check["summary"]
    assert "cmake>=3.20,<4.0" in check["summary"] and "pip install 'cmake>=3.20,<4'" in check["fix"]
