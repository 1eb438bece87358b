"""What the mini Triton downloads, served from a local folder: never the network.

Real Triton's build fetches the NVIDIA tools from developer.download.nvidia.com, nlohmann/json from
github.com and (newest main) the AMD codegen library from the LLVM build host. The mini Triton's
build_helpers.py asks for the same URLs; when MINI_WORLD_DOWNLOADS is set to a base URL it reads
`<base>/<host>/<path>` instead (a `file://` folder here). A URL the folder does not hold fails the
way a missing file on the real host does; with the variable unset the real host is asked.

The archives are built byte for byte the same on every run (fixed names, modes and times, gzip
without a timestamp), so the sha256 the world's cmake/amd-llvm-info.json records is stable.

The fake tools answer `--version` like the real ones ("Cuda compilation tools, release 12.8,
V12.8.93") and ptxas "assembles" a .ptx file into a small text cubin, so a Triton can be seen to
find and run them.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import lzma
import os
import platform
import tarfile
import zipfile
from pathlib import Path

DOWNLOADS_ENV = "MINI_WORLD_DOWNLOADS"

NVIDIA_REDIST = "developer.download.nvidia.com/compute/cuda/redist"
LLVM_BUILDS = "oaitriton.blob.core.windows.net/public/llvm-builds"
JSON_RELEASES = "github.com/nlohmann/json/releases/download"
JSON_VERSION = "v3.11.3"
# Triton 3.0/3.1 download pybind11 from GitHub's tag archive (cmake/pybind11-version.txt).
PYBIND11_ARCHIVES = "github.com/pybind/pybind11/archive/refs/tags"
PYBIND11_VERSION = "2.11.1"

# One toolchain for every era of the world (upstream's versions per era: docs/test-world.md).
NVIDIA_VERSIONS = {
    "ptxas": "12.8.93",
    "ptxas-blackwell": "12.9.86",
    "cuobjdump": "12.8.55",
    "nvdisasm": "12.8.55",
    "cudart": "12.8.57",
}
AMD_CODEGEN_LIBRARY = "libtriton_amd_codegen.so"
# The AMD codegen's own LLVM: a commit of ROCm/llvm-project that the world has no repository for.
AMD_LLVM_HASH = "d0c52018c28bbf7f4969cae7d115214ff4fd8629"
AMD_LLVM_BUILD_NUMBER = 1

_FIXED_MTIME = 1767225600  # 2026-01-01


def nvidia_arch() -> str:
    machine = platform.machine()
    return {"arm64": "sbsa", "aarch64": "sbsa"}.get(machine, machine)


def llvm_system_suffix() -> str:
    """The prebuilt-LLVM suffix Triton picks on this machine (Linux only, as the world runs there)."""
    machine = platform.machine()
    if machine in ("arm64", "aarch64"):
        return "ubuntu-arm64"
    glibc = platform.libc_ver()[1]
    newer = tuple(int(p) for p in glibc.split(".")[:2]) > (2, 28) if glibc else True
    return "ubuntu-x64" if newer else "almalinux-x64"


def fake_nvidia_tool(name: str, version: str) -> str:
    """A shell script that answers like `name` of CUDA `version`; ptxas also writes a text cubin."""
    major_minor = ".".join(version.split(".")[:2])
    banner = {
        "ptxas": "ptxas: NVIDIA (R) Ptx optimizing assembler",
        "cuobjdump": "cuobjdump: NVIDIA (R) CUDA Object Utility",
        "nvdisasm": "nvdisasm: NVIDIA (R) CUDA disassembler",
    }[name]
    script = f"""#!/bin/sh
# The test world's {name} {version}: answers --version like the real one.
case "$1" in
  --version|-V)
    echo "{banner}"
    echo "Copyright (c) 2005-2025 NVIDIA Corporation"
    echo "Cuda compilation tools, release {major_minor}, V{version}"
    exit 0;;
esac
"""
    if name == "ptxas":
        script += """arch=sm_52
out=elf.o
input=
while [ $# -gt 0 ]; do
  case "$1" in
    -arch=*|--gpu-name=*) arch="${1#*=}";;
    -arch|--gpu-name) shift; arch="$1";;
    -o|--output-file) shift; out="$1";;
    -*) ;;
    *) input="$1";;
  esac
  shift
done
if [ -z "$input" ] || [ ! -f "$input" ]; then
  echo "ptxas fatal   : No input files specified; use option --help for more information" >&2
  exit 255
fi
{ echo "FAKECUBIN $arch"; cksum < "$input"; } > "$out"
"""
    else:
        script += 'echo "' + name + ': nothing to do"\n'
    return script


def _tar(entries: dict[str, tuple[bytes, int]], compression: str) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        folders: set[str] = set()
        for name in sorted(entries):
            parts = name.split("/")
            for depth in range(1, len(parts)):
                folder = "/".join(parts[:depth])
                if folder not in folders:
                    folders.add(folder)
                    info = tarfile.TarInfo(folder)
                    info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, _FIXED_MTIME
                    tar.addfile(info)
            data, mode = entries[name]
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, _FIXED_MTIME
            tar.addfile(info, io.BytesIO(data))
    if compression == "xz":
        return lzma.compress(raw.getvalue())
    return gzip.compress(raw.getvalue(), mtime=0)


def _zip(entries: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            archive.writestr(info, entries[name])
    return raw.getvalue()


def _nvidia_archives() -> dict[str, bytes]:
    system, arch = "linux", nvidia_arch()
    files: dict[str, bytes] = {}

    def add(component: str, version: str, entries: dict[str, tuple[bytes, int]]) -> None:
        stem = f"{component}-{system}-{arch}-{version}-archive"
        named = {f"{stem}/{path}": value for path, value in entries.items()}
        files[f"{NVIDIA_REDIST}/{component}/{system}-{arch}/{stem}.tar.xz"] = _tar(named, "xz")

    for key in ("ptxas", "ptxas-blackwell"):
        version = NVIDIA_VERSIONS[key]
        add("cuda_nvcc", version, {"bin/ptxas": (fake_nvidia_tool("ptxas", version).encode(), 0o755)})
    for tool in ("cuobjdump", "nvdisasm"):
        version = NVIDIA_VERSIONS[tool]
        add(f"cuda_{tool}", version, {f"bin/{tool}": (fake_nvidia_tool(tool, version).encode(), 0o755)})
    cuda_h = b"/* The test world's cuda.h */\n#define CUDA_VERSION 12080\n"
    add("cuda_cudart", NVIDIA_VERSIONS["cudart"], {"include/cuda.h": (cuda_h, 0o644)})
    return files


# The Linux platforms the world's packages exist for (upstream also lists macOS and Windows).
LINUX_SUFFIXES = ("almalinux-arm64", "almalinux-x64", "ubuntu-arm64", "ubuntu-x64")


def amd_codegen_archive(suffix: str) -> tuple[str, bytes]:
    """(file name, bytes) of the AMD codegen package for one platform suffix."""
    name = f"amd-codegen-{AMD_LLVM_HASH[:8]}-{suffix}-{AMD_LLVM_BUILD_NUMBER}"
    library = b"\x7fELF (the test world's AMD codegen library)\n"
    return f"{name}.tar.gz", _tar({f"{name}/lib/{AMD_CODEGEN_LIBRARY}": (library, 0o755)}, "gz")


def amd_codegen_sha256() -> dict[str, str]:
    """The sha256sum map of cmake/amd-llvm-info.json, one digest per platform suffix."""
    return {suffix: hashlib.sha256(amd_codegen_archive(suffix)[1]).hexdigest() for suffix in LINUX_SUFFIXES}


def json_header() -> bytes:
    return b"// The test world's nlohmann/json.hpp\n#pragma once\nnamespace nlohmann { struct json {}; }\n"


def pybind11_archive() -> bytes:
    """GitHub's archive of the pybind11 tag: one top folder pybind11-<version>/ holding include/pybind11/."""
    header = b"// The test world's pybind11/pybind11.h\n#pragma once\nnamespace pybind11 {}\n"
    return _tar({f"pybind11-{PYBIND11_VERSION}/include/pybind11/pybind11.h": (header, 0o644)}, "gz")


def archives() -> dict[str, bytes]:
    """Every download the mini Triton asks for, by `<host>/<path>`."""
    files = _nvidia_archives()
    files[f"{PYBIND11_ARCHIVES}/v{PYBIND11_VERSION}.tar.gz"] = pybind11_archive()
    files[f"{JSON_RELEASES}/{JSON_VERSION}/include.zip"] = _zip({"include/nlohmann/json.hpp": json_header()})
    for suffix in LINUX_SUFFIXES:
        name, data = amd_codegen_archive(suffix)
        files[f"{LLVM_BUILDS}/{name}"] = data
    return files


def make_downloads(folder: Path) -> str:
    """Write every download under `folder` (host/path layout); returns the base URL for DOWNLOADS_ENV."""
    for rel, data in archives().items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder.resolve().as_uri()


def use_downloads(url: str) -> None:
    """Make this process and its children read these downloads: the world built last wins.

    Always replaced, never kept when already set: an earlier world of the same process may be gone
    (a benchmark deletes its world when it ends), and its folder must not be read by the next one.
    Every world writes the same bytes, so tests still using an earlier world read the same files.
    """
    os.environ[DOWNLOADS_ENV] = url


def provide_downloads(folder: Path) -> str:
    """Write the downloads under `folder` and make this process read them; returns the base URL."""
    url = make_downloads(folder)
    use_downloads(url)
    return url
