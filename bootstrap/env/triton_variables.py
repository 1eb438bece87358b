"""Names of Triton's environment variables that several packages set or read: IR dumps, offline tools."""

from __future__ import annotations

import os
from collections.abc import Mapping

# Environment that makes Triton dump IR (read by triton/knobs.py and the C++ GetEnv.h).
DUMP_VARIABLES_COMMON = {
    "TRITON_ALWAYS_COMPILE": "1",  # cached kernels would compile nothing, so dump nothing
    "MLIR_ENABLE_DUMP": "1",
    "TRITON_DISABLE_LINE_INFO": "1",  # drops loc(...) noise from every line of the dump
}


DUMP_VARIABLES_BY_BACKEND = {"nvidia": {"NVPTX_ENABLE_DUMP": "1"}, "amd": {"AMDGCN_ENABLE_DUMP": "1"}}


# What Triton's C++ (include/triton/Tools/Sys/GetEnv.hpp, isEnvValueBool) reads as on/off, lower-cased;
# any other MLIR_ENABLE_DUMP value is the name of the one kernel to dump (python/src/ir.cc, enable_debug).
_ON_OFF = frozenset({"1", "true", "on", "0", "false", "off", ""})


def dump_variables(backend: str, kernel: str | None = None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables that make Triton dump its IR. MLIR_ENABLE_DUMP is Triton's own per-kernel filter when it
    holds a kernel's name: `kernel` sets it, and a name already in `environ` is kept rather than turned into 1.
    A TRITON_DISABLE_LINE_INFO already in `environ` is kept too: `TRITON_DISABLE_LINE_INFO=0` asks for the
    kernel's file positions in the dump (`tritondev ir view` maps them to the source)."""
    values = {**DUMP_VARIABLES_COMMON, **DUMP_VARIABLES_BY_BACKEND[backend]}
    environ = environ if environ is not None else os.environ
    if environ.get("TRITON_DISABLE_LINE_INFO", "").strip():
        values["TRITON_DISABLE_LINE_INFO"] = environ["TRITON_DISABLE_LINE_INFO"].strip()
    given = environ.get("MLIR_ENABLE_DUMP", "").strip()
    if kernel:
        values["MLIR_ENABLE_DUMP"] = kernel
    elif given.lower() not in _ON_OFF:
        values["MLIR_ENABLE_DUMP"] = given
    return values


# Tools upstream's download_and_copy copies (dst under NVIDIA_BACKEND) and the variable that names each.
TOOL_VARIABLES = {
    "bin/ptxas": "TRITON_PTXAS_PATH",
    "bin/cuobjdump": "TRITON_CUOBJDUMP_PATH",
    "bin/nvdisasm": "TRITON_NVDISASM_PATH",
}


# Every variable that skips one of upstream's downloads of an NVIDIA tool or header folder.
SKIP_VARIABLES = (
    "TRITON_PTXAS_PATH",
    "TRITON_PTXAS_BLACKWELL_PATH",
    "TRITON_CUOBJDUMP_PATH",
    "TRITON_NVDISASM_PATH",
    "TRITON_CUDACRT_PATH",
    "TRITON_CUDART_PATH",
    "TRITON_CUPTI_INCLUDE_PATH",
    "TRITON_CUPTI_LIB_PATH",
    "TRITON_CUPTI_LIB_BLACKWELL_PATH",
    "TRITON_CUPTI_PATH",
)
