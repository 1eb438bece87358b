"""On a machine with an NVIDIA GPU (the H100 runner: torch 2.11, triton 3.6, jax 0.11.2, CUDA tools):
the GPU, driver, arch, libcuda and ptxas checks pass for the interpreter running the tests, and JAX
is reported."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of


@pytest.mark.gpu
def test_gpu_machine_is_healthy_for_triton(cli: Cli, tmp_path: Path) -> None:
    result = cli(
        "doctor",
        "--python",
        sys.executable,
        "--workspace",
        str(tmp_path / "ws"),
        "--json",
        "-v",
        "--check",
        "gpu",
        "--check",
        "ptxas",
        "--check",
        "jax",
        "--check",
        "packages.triton-import",
        "--check",
        "packages.torch-triton",
        "--deep",
    )
    checks = checks_of(result.stdout)
    for name in (
        "gpu.driver",
        "gpu.arch",
        "gpu.libcuda",
        "ptxas.arch",
        "ptxas.overrides",
        "ptxas.driver",
        "packages.triton-import",
        "packages.torch-triton",
    ):
        assert checks[name]["status"] == "ok", (name, checks[name]["summary"], checks[name]["details"])
    assert "CUDA" in checks["gpu.driver"]["summary"]
    arch = checks["gpu.arch"]["summary"]
    if "H100" in checks["gpu.driver"]["summary"]:
        assert arch.startswith("sm_90"), arch
        assert "sm_90" in checks["ptxas.arch"]["summary"]
    assert "compiles for sm_" in checks["ptxas.arch"]["summary"]
    # --deep: torch's pinned Triton is installed and a tiny torch.compile runs on the GPU
    assert "torch.compile works on cuda" in checks["packages.torch-triton"]["summary"]
    # JAX is reported: its versions and the Triton FFI target, whatever their status.
    assert checks["jax.versions"]["status"] != "skipped", checks["jax.versions"]["summary"]
    assert "jax" in checks["jax.versions"]["summary"]
    assert checks["jax.triton-ffi"]["status"] != "skipped", checks["jax.triton-ffi"]["summary"]
