"""The GPU as doctor reads it, with no CUDA context: nvidia-smi's two readings side by side, and GPU 0's
compute capability and name asked of NVML in this process, given up on after a few seconds."""

from __future__ import annotations

import ctypes
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bootstrap.core.process.runner import Result, Runner
from bootstrap.kernels.gpus import NVIDIA_QUERY
from bootstrap.kernels.gpus import TIMEOUT as SMI_TIMEOUT

NVML_TIMEOUT = 5.0  # a wedged driver can hang NVML: then nvidia-smi (with its own timeout) answers


def nvidia_smi_readings(runner: Runner, smi: str, cwd: Path) -> tuple[Result, Result]:
    """nvidia-smi's GPU query and its banner (which alone names the driver's CUDA version), run side by
    side; CommandFailed where either could not run."""

    def read(*args: str) -> Result:
        return runner.capture([smi, *args], step="doctor-nvidia-smi", check=False, timeout=SMI_TIMEOUT, cwd=cwd)

    with ThreadPoolExecutor(max_workers=2) as pool:
        query, banner = pool.submit(read, *NVIDIA_QUERY), pool.submit(read)
        return query.result(), banner.result()


def nvml_gpu0_in_time() -> tuple[int, str] | None:
    """nvml_gpu0(), or None where NVML gives no answer within NVML_TIMEOUT (its thread, a daemon, is left
    to end on its own)."""
    answer: list[tuple[int, str] | None] = [None]
    reader = threading.Thread(target=lambda: answer.__setitem__(0, nvml_gpu0()), daemon=True)
    reader.start()
    reader.join(NVML_TIMEOUT)
    return answer[0]


def nvml_gpu0() -> tuple[int, str] | None:
    """NVML's compute capability and name of GPU 0 (index 0, as nvidia-smi numbers them); None on any
    failure. NVML only reads the driver's state: no CUDA context is made."""
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    if nvml.nvmlInit_v2() != 0:
        return None
    try:
        device = ctypes.c_void_p()
        major, minor = ctypes.c_int(), ctypes.c_int()
        name = ctypes.create_string_buffer(96)
        if (
            nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(device)) != 0
            or nvml.nvmlDeviceGetCudaComputeCapability(device, ctypes.byref(major), ctypes.byref(minor)) != 0
            or nvml.nvmlDeviceGetName(device, name, len(name)) != 0
        ):
            return None
        return major.value * 10 + minor.value, name.value.decode(errors="replace")
    finally:
        nvml.nvmlShutdown()
