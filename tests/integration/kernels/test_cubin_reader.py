"""The cubin reader (bootstrap/kernels/cubin.py) against what ptxas itself says it assembled.

CUDA C kernels with a plain body, static shared memory, a local array (a stack frame) and a register
cap that spills, built by the installed nvcc for three architectures; `ptxas -v` prints each kernel's
registers, stack frame and `smem`. Skipped where nvcc is not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.process.runner import Runner
from bootstrap.kernels.cubin import cubin_resource_usage
from bootstrap.kernels.disasm import read_cubin

SOURCE = r"""
extern "C" __global__ void plain(float* x) { x[threadIdx.x] += 1.0f; }
extern "C" __global__ void with_shared(float* x) {
  __shared__ float tile[300];
  tile[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = tile[(threadIdx.x + 1) % 300];
}
extern "C" __global__ void with_local(float* x, int i) {
  float a[64];
  for (int k = 0; k < 64; ++k) a[k] = x[k * threadIdx.x];
  x[threadIdx.x] = a[i & 63] + a[(i * 7) & 63];
}
extern "C" __global__ void spilling(float* x) {
  float v[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) v[k] = x[k * 129 + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int k = 0; k < 48; ++k) s += v[k] * v[(k * 5) % 48];
  x[threadIdx.x] = s;
}
"""
KERNELS = ("plain", "with_shared", "with_local", "spilling")
# From sm_90 on, a kernel's .nv.shared section also holds 1 KB the hardware reserves, and cuobjdump's
# SHARED says so (2224 for this with_shared on an H200); ptxas -v's `smem` counts only what was declared.
RESERVED = {"sm_80": 0, "sm_90": 1024, "sm_100": 1024}

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (a CUDA toolkit)")


def _ptxas_says(text: str) -> dict[str, dict[str, int]]:
    said: dict[str, dict[str, int]] = {}
    current = ""
    for line in text.splitlines():
        entry = re.search(r"Compiling entry function '(\w+)'", line)
        if entry:
            current = entry.group(1)
            said[current] = {"smem": 0}
        for key, pattern in (
            ("stack", r"(\d+) bytes stack frame"),
            ("registers", r"Used (\d+) registers"),
            ("smem", r"(\d+) bytes smem"),
        ):
            found = re.search(pattern, line)
            if found and current:
                said[current][key] = int(found.group(1))
    return said


@pytest.mark.parametrize("arch", sorted(RESERVED))
def test_registers_frame_and_shared_memory_are_what_ptxas_assembled(arch: str, tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(SOURCE)
    cubin = tmp_path / "k.cubin"
    built = subprocess.run(
        ["nvcc", "-cubin", f"-arch={arch}", "-Xptxas", "-v", "-maxrregcount=16", "k.cu", "-o", str(cubin)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0 and "Unsupported gpu architecture" in built.stderr:
        pytest.skip(f"this nvcc does not know {arch}")
    assert built.returncode == 0, built.stderr
    said = _ptxas_says(built.stdout + built.stderr)
    assert sorted(said) == sorted(KERNELS)
    data = cubin.read_bytes()
    for kernel in KERNELS:
        read = cubin_resource_usage(data, kernel)
        assert (read["registers"], read["stack"]) == (said[kernel]["registers"], said[kernel]["stack"]), kernel
        # No shared memory declared: no section, and 0 (cuobjdump's SHARED:0).
        assert read["shared"] == (said[kernel]["smem"] + RESERVED[arch] if said[kernel]["smem"] else 0), kernel
    # The cases are real: a stack frame and static shared memory were assembled.
    assert said["spilling"]["stack"] > 0 and said["with_shared"]["smem"] == 1200
    assert cubin_resource_usage(data, "no_such_kernel") == {}
    assert cubin_resource_usage(data, "spilling\0tail") == cubin_resource_usage(data, "") == {}  # never a prefix
    # What `tritondev compile` reports for a kernel: the same reading, with no tool run for it.
    reading = read_cubin(Runner(silent=True), cubin, "spilling", [])
    assert reading.usage == cubin_resource_usage(data, "spilling")
    assert reading.warnings == [
        "no nvdisasm found (Triton's bundled one, $CUDA_HOME, /usr/local/cuda, PATH): SASS not written"
    ]
