"""The NVIDIA backend's compiler (miniature): which ptxas assembles a kernel, and the cubin it makes."""

import os
import re
import subprocess
import sysconfig
import tempfile


# %%IF IN_PYTHON_DIR%%
def _path_to_binary(binary: str):
    binary += sysconfig.get_config_var("EXE") or ""
    paths = [
        os.environ.get(f"TRITON_{binary.upper()}_PATH", ""),
        os.path.join(os.path.dirname(__file__), "bin", binary),
    ]
    for bin in paths:
        if os.path.exists(bin) and os.path.isfile(bin):
            result = subprocess.check_output([bin, "--version"], stderr=subprocess.STDOUT)
            if result is not None:
                version = re.search(r".*release (\d+\.\d+).*", result.decode("utf-8"), flags=re.MULTILINE)
                if version is not None:
                    return bin, version.group(1)
    raise RuntimeError(f"Cannot find {binary}")


def get_ptxas(arch: int):
    """(path, CUDA release) of the ptxas for sm_<arch>."""
    # %%IF PTXAS_BLACKWELL%%
    name = "ptxas-blackwell" if arch >= 100 else "ptxas"
    # %%ELSE%%
    name = "ptxas"
    # %%ENDIF%%
    return _path_to_binary(name)


# %%ELSE%%
def get_ptxas(arch: int):
    """The knobs.NvidiaTool (path, version) of the ptxas for sm_<arch> (3.4 on; a tuple before)."""
    from triton import knobs

    # %%IF PTXAS_BLACKWELL%%
    return knobs.nvidia.ptxas_blackwell if arch >= 100 else knobs.nvidia.ptxas
    # %%ELSE%%
    return knobs.nvidia.ptxas
    # %%ENDIF%%


# %%ENDIF%%


def make_cubin(src: str, arch: int) -> str:
    # %%IF IN_PYTHON_DIR%%
    ptxas, _ = get_ptxas(arch)
    # %%ELSE%%
    ptxas = get_ptxas(arch).path
    # %%ENDIF%%
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = os.path.join(tmp, "kernel.ptx"), os.path.join(tmp, "kernel.cubin")
        with open(ptx, "w") as f:
            f.write(src)
        subprocess.run([ptxas, f"--gpu-name=sm_{arch}", ptx, "-o", cubin], check=True, capture_output=True)
        with open(cubin) as f:
            return f.read()
