"""triton.knobs (miniature): how Triton finds the NVIDIA tools it runs (python/triton/knobs.py, 3.4 on).

An environment variable TRITON_<TOOL>_PATH first, then the copy under triton/backends/nvidia/bin,
else "Cannot find <tool>".
"""

import os
import re
import subprocess
import sysconfig
from dataclasses import dataclass


@dataclass
class NvidiaTool:
    path: str
    version: str

    @staticmethod
    def from_path(path):
        try:
            result = subprocess.check_output([path, "--version"], stderr=subprocess.STDOUT)
        except (subprocess.CalledProcessError, OSError):
            return None
        version = re.search(r".*release (\d+\.\d+).*", result.decode("utf-8"), flags=re.MULTILINE)
        if version is None:
            return None
        return NvidiaTool(path, version.group(1))


class env_nvidia_tool:

    def __init__(self, binary):
        binary += sysconfig.get_config_var("EXE") or ""
        self.binary = binary
        # %%IF ENV_NAME_FIXED%%
        # Convert ptxas-blackwell to PTXAS_BLACKWELL, not PTXAS-BLACKWELL
        self.key = f"TRITON_{binary.upper().replace('-', '_')}_PATH"
        # %%ELSE%%
        self.key = f"TRITON_{binary.upper()}_PATH"
        # %%ENDIF%%
        self.default_path = os.path.join(os.path.dirname(__file__), "backends", "nvidia", "bin", binary)

    def __get__(self, obj, objclass=None):
        path = os.environ.get(self.key)
        paths = [path, self.default_path] if path else [self.default_path]
        for candidate in paths:
            if not candidate or not os.access(candidate, os.X_OK):
                continue
            if tool := NvidiaTool.from_path(candidate):
                return tool
        raise RuntimeError(f"Cannot find {self.binary}")


class nvidia_knobs:
    ptxas = env_nvidia_tool("ptxas")
    cuobjdump = env_nvidia_tool("cuobjdump")
    nvdisasm = env_nvidia_tool("nvdisasm")
    # %%IF PTXAS_BLACKWELL%%
    ptxas_blackwell = env_nvidia_tool("ptxas-blackwell")
    # %%ENDIF%%


nvidia = nvidia_knobs()
