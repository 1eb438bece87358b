"""How doctor asks the target: one start of the target Python answers `import triton`, the ptxas Triton
chooses for the arch and the compile proof. Real triton 3.9.0 from the package index; no GPU needed
(--arch: the proof is an ahead-of-time compile)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.support.venvs import triton_venv

TRITON_PROBE = "tritondev_triton.py"
COMPILE_PROBE = "tritondev_compile_check.py"


def started(stderr: str, script: str) -> int:
    """How many commands `-v` echoed that run `script`."""
    return sum(1 for line in stderr.splitlines() if line.startswith("$ ") and script in line)


def test_one_start_of_the_target_answers_import_ptxas_and_the_proof(cli: Cli, tmp_path: Path) -> None:
    py = triton_venv()
    proc = cli(
        "doctor",
        "--python",
        str(py),
        "--workspace",
        str(tmp_path / "ws"),
        "--arch",
        "sm_90",
        "--check",
        "packages",
        "--check",
        "ptxas",
        "--json",
        "-v",
    )
    checks = checks_of(proc.stdout)
    assert checks["ptxas.arch"]["status"] == "ok", checks["ptxas.arch"]
    assert "Triton 3.9.0 compiles for sm_90" in checks["ptxas.arch"]["summary"]
    assert checks["packages.triton-import"]["status"] == "ok", checks["packages.triton-import"]
    assert started(proc.stderr, TRITON_PROBE) == 1, proc.stderr
    assert started(proc.stderr, COMPILE_PROBE) == 0, proc.stderr
    assert proc.returncode == 0
