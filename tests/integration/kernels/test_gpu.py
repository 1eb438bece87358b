"""On a machine with an NVIDIA GPU (run there with the system's torch and triton, e.g. torch 2.11 and
triton 3.6): verify launches its kernels on the device, and compile for the local architecture
agrees with what Triton reports after a real launch; SASS comes from the system's nvdisasm."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.integration.kernels.conftest import RunCli
from tests.integration.kernels.kernels_src import ADD_SIGNATURE

pytestmark = pytest.mark.gpu


def test_verify_launches_and_checks_kernels_on_the_gpu(tdv: RunCli) -> None:
    proc = tdv("verify", "--python", sys.executable, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True and report["mode"] == "gpu"
    assert report["torch"]["gpu"] is True and report["torch"]["device"]
    assert report["triton"]["active"]["backend"] in ("cuda", "hip")
    checks = {c["name"]: c for c in report["checks"]}
    for kernel in ("vector_add", "softmax", "matmul"):
        assert checks[kernel]["ok"] is True, checks[kernel]
    if report["triton"]["active"]["backend"] == "cuda":
        # The runtime as a fresh shell has it: Triton finds ptxas by itself, and compiles the GPU's own
        # arch ahead of time with it.
        assert checks["ptxas"]["ok"] is True, checks["ptxas"]
        arch = "".join(str(n) for n in report["torch"]["capability"])
        assert report["targets"] == [f"cuda:{arch}"] and checks[f"compile cuda:{arch}"]["ok"] is True
    bandwidth = report["bandwidth"]
    assert bandwidth["ok"] is True
    assert bandwidth["add_gbps"] > 0 and bandwidth["copy_gbps"] > 0
    # A vector add is memory-bound: it should move bytes nearly as fast as a plain device copy.
    assert bandwidth["ratio"] >= 0.8, bandwidth


def _system_nvdisasm() -> str | None:
    for candidate in (shutil.which("nvdisasm"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                              "bin", "nvdisasm")):  # fmt: skip
        if candidate and os.access(candidate, os.X_OK) and "triton" not in candidate:
            return candidate
    return None


def test_compile_for_the_local_arch_matches_a_real_launch(tdv: RunCli, kernel_file: Path, tmp_path: Path) -> None:
    import importlib.util

    import torch
    import triton

    nvdisasm = _system_nvdisasm()
    if nvdisasm is None:
        pytest.skip("no system nvdisasm (PATH or $CUDA_HOME/bin) on this GPU machine")
    major, minor = torch.cuda.get_device_capability(0)
    target = f"cuda:{major}{minor}"
    # Launches specialise 16-aligned pointers and sizes divisible by 16; say the same to compile.
    signature = ",".join(f"{item}:16" for item in ADD_SIGNATURE.split(","))
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", signature, "-c", "BLOCK=1024", "-t", target,
               "-o", str(tmp_path), "--python", sys.executable, "--json",
               env={"TRITON_NVDISASM_PATH": nvdisasm})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["nvdisasm"] == nvdisasm
    (entry,) = report["targets"]
    sass = Path(entry["files"]["sass"]).read_text()
    assert "add_kernel:" in sass and "EXIT" in sass

    spec = importlib.util.spec_from_file_location("gpu_kernels", kernel_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    n = 4096
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    launched = module.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)
    res = entry["resources"]
    assert res["registers"] == launched.n_regs
    assert res["spills"] == launched.n_spills
    assert res["shared_bytes"] == launched.metadata.shared
    assert res["threads"] == launched.metadata.num_warps * 32
