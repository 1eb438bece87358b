"""GPU and CUDA: driver and its CUDA version, the arch, libcuda as Triton finds it, ROCm."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bootstrap.doctor.facts import Facts, Skip
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.kernels.gpus import read_rocm

NO_DRIVER = "no NVIDIA driver here (nvidia-smi not found)"


@check("gpu.driver", "NVIDIA driver and its CUDA version")
def driver(facts: Facts) -> CheckOutcome:
    info = facts.gpu_info()
    if info is None:
        raise Skip(NO_DRIVER + ("; checking --arch ahead of time" if facts.asked_arch else ""))
    if not info.gpus:
        return error(
            "nvidia-smi lists no GPU (driver not loaded, or no access to /dev/nvidia*)",
            "check `nvidia-smi`; in a container, run it with --gpus all",
        )
    names = ", ".join(f"{g.index}: {g.name}" for g in info.gpus)
    return ok(f"driver {info.driver}, CUDA {info.cuda or '?'}; GPUs {names}")


@check("gpu.arch", "GPU arch")
def arch(facts: Facts) -> CheckOutcome:
    info = facts.gpu_info()
    gpu_archs = sorted({g.arch for g in info.gpus if g.arch}) if info else []
    if facts.asked_arch is not None:
        shown = f"sm_{facts.asked_arch} (asked with --arch)"
        if gpu_archs and facts.asked_arch not in gpu_archs:
            shown += "; this machine's GPUs are " + ", ".join(f"sm_{a}" for a in gpu_archs)
        return ok(shown)
    if not gpu_archs:
        raise Skip(NO_DRIVER if info is None else "nvidia-smi reports no compute capability", "pass --arch sm_XY")
    mixed = "" if len(gpu_archs) == 1 else " (mixed archs: Triton compiles per device)"
    return ok(", ".join(f"sm_{a}" for a in gpu_archs) + mixed)


def libcuda_dirs(environ: dict[str, str], ldconfig_output: str) -> tuple[list[str], str]:
    """The folders Triton's driver.py would search for libcuda.so.1, and how it found them.

    Same order as Triton: TRITON_LIBCUDA_PATH, then `ldconfig -p`, then LD_LIBRARY_PATH.
    """
    if environ.get("TRITON_LIBCUDA_PATH"):
        return [environ["TRITON_LIBCUDA_PATH"]], "TRITON_LIBCUDA_PATH"
    locs = [line.split()[-1] for line in ldconfig_output.splitlines() if "libcuda.so.1" in line]
    dirs = [os.path.dirname(loc) for loc in locs]
    if dirs:
        return dirs, "ldconfig -p"
    path = environ.get("LD_LIBRARY_PATH", "")
    dirs = [d for d in path.split(":") if d and os.path.exists(os.path.join(d, "libcuda.so.1"))]
    return dirs, "LD_LIBRARY_PATH"


@check("gpu.libcuda", "libcuda.so found the way Triton finds it")
def libcuda(facts: Facts) -> CheckOutcome:
    info = facts.gpu_info()
    if info is None and not facts.environ.get("TRITON_LIBCUDA_PATH"):
        raise Skip(NO_DRIVER)
    ldconfig = shutil.which("ldconfig", path="/sbin:/usr/sbin:" + facts.environ.get("PATH", "")) or "/sbin/ldconfig"
    output = ""
    if Path(ldconfig).exists():
        result = facts.ctx.runner.capture([ldconfig, "-p"], step="doctor-ldconfig", check=False, timeout=20)
        output = result.stdout
    dirs, how = libcuda_dirs(facts.environ, output)
    found = [d for d in dirs if os.path.exists(os.path.join(d, "libcuda.so.1"))]
    if not found:
        wsl = Path("/usr/lib/wsl/lib/libcuda.so.1").exists()
        fix = (
            "export TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib"
            if wsl
            else "run `sudo ldconfig` after installing the driver,"
            " or export TRITON_LIBCUDA_PATH=<folder of libcuda.so.1>"
        )
        return error(f"libcuda.so.1 not found via {how}: Triton fails with 'libcuda.so cannot found!'", fix)
    # The launcher links with -lcuda: the linker wants the unversioned libcuda.so next to it.
    linkable = [d for d in found if os.path.exists(os.path.join(d, "libcuda.so"))]
    if not linkable:
        folder = found[0]
        return warn(
            f"{folder}/libcuda.so.1 found via {how}, but no libcuda.so: building the launcher fails with"
            " 'cannot find -lcuda'",
            f"ln -s libcuda.so.1 {folder}/libcuda.so  (or install the driver's development package)",
        )
    return ok(f"{linkable[0]}/libcuda.so (via {how})")


@check("gpu.rocm", "ROCm (AMD GPUs)")
def rocm(facts: Facts) -> CheckOutcome:
    root = Path(facts.environ.get("ROCM_PATH") or "/opt/rocm")
    version_file = root / ".info" / "version"
    rocminfo = shutil.which("rocminfo", path=facts.environ.get("PATH", ""))
    if not root.exists() and rocminfo is None:
        raise Skip("ROCm not installed")
    version = version_file.read_text(encoding="utf-8").strip() if version_file.is_file() else "unknown version"
    details = []
    if rocminfo is not None:
        gfx = sorted(read_rocm(facts.ctx.runner, rocminfo, step="doctor-rocminfo"))
        details.append("GPUs: " + (", ".join(gfx) or "none"))
        if not gfx:
            return warn(
                f"ROCm {version} at {root}, but rocminfo lists no GPU",
                "check access to /dev/kfd (groups render, video)",
            )
    if facts.ctx.settings.backend != "amd":
        details.append("the backend setting is nvidia; use --backend amd to build for these GPUs")
    return ok(f"ROCm {version} at {root}", *details)
