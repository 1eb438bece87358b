"""Helpers shared by setup.py and CMakeLists.txt (miniature): build folder, flags, downloads.

Which of them a commit has follows its era; docs/test-world.md lists, per behaviour, the upstream
file and commit it follows.
"""

import hashlib
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import urllib.request
import zipfile
from pathlib import Path

LLVM_PIN_FILE = "%%LLVM_PIN_FILE%%"
LLVM_BUILDS_URL = "https://oaitriton.blob.core.windows.net/public/llvm-builds"
NVIDIA_REDIST_URL = "https://developer.download.nvidia.com/compute/cuda/redist"
JSON_URL = "https://github.com/nlohmann/json/releases/download"
DOWNLOAD_TIMEOUT = 20


def get_base_dir():
    return os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))


def check_env_flag(name: str, default: str = "") -> bool:
    # Taken from https://github.com/pytorch/pytorch/blob/master/tools/setup_helpers/env.py
    return os.getenv(name, default).upper() in ["ON", "1", "YES", "TRUE", "Y"]


# %%IF OFFLINE_FLAG%%
def is_offline_build() -> bool:
    """Downstream projects and distributions which bootstrap their own dependencies from scratch and
    run builds in offline sandboxes may set `TRITON_OFFLINE_BUILD` in the build environment to
    prevent any attempts at downloading packages at build time."""
    return check_env_flag("TRITON_OFFLINE_BUILD")


# %%ENDIF%%
def get_triton_cache_path():
    # %%IF TRITON_HOME_ENV%%
    user_home = os.getenv("TRITON_HOME")
    if not user_home:
        user_home = os.getenv("HOME") or os.getenv("USERPROFILE") or os.getenv("HOMEPATH") or None
    # %%ELSE%%
    # Before TRITON_HOME (#4152, not in the 3.0 and 3.1 branches): always the home folder.
    user_home = os.getenv("HOME") or os.getenv("USERPROFILE") or os.getenv("HOMEPATH") or None
    # %%ENDIF%%
    if not user_home:
        raise RuntimeError("Could not find user home directory")
    return os.path.join(user_home, ".triton")


def _get_cmake_dir():
    plat_name = sysconfig.get_platform()
    python_version = sysconfig.get_python_version()
    dir_name = f"cmake.{plat_name}-{sys.implementation.name}-{python_version}"
    return Path(get_base_dir()) / "%%BUILD_ROOT%%" / dir_name


def get_cmake_dir():
    # %%IF BUILD_DIR_ENV%%
    cmake_dir = os.getenv("TRITON_BUILD_DIR", default=_get_cmake_dir())
    cmake_dir = Path(cmake_dir)
    # %%ELSE%%
    cmake_dir = _get_cmake_dir()
    # %%ENDIF%%
    cmake_dir.mkdir(parents=True, exist_ok=True)
    return cmake_dir


def open_url(url):
    # Test world: MINI_WORLD_DOWNLOADS=<base URL> reads https://HOST/PATH from <base>/HOST/PATH.
    base = os.getenv("MINI_WORLD_DOWNLOADS")
    if base:
        url = base.rstrip("/") + "/" + url.split("://", 1)[1]
    return urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT)


# -- LLVM and nlohmann/json: a *_SYSPATH given, else a download into the cache ------------------------


def get_llvm_system_suffix(override=None):
    if override or os.getenv("TRITON_LLVM_SYSTEM_SUFFIX"):
        return override or os.environ["TRITON_LLVM_SYSTEM_SUFFIX"]
    system = platform.system()
    arch = platform.machine()
    if system == "Darwin":
        return "macos-arm64" if arch in ("arm64", "aarch64") else "macos-x64"
    if system == "Linux":
        if arch in ("arm64", "aarch64"):
            try:
                with open("/etc/os-release") as f:
                    if 'ID="almalinux"' in f.read():
                        return "almalinux-arm64"
            except OSError:
                pass
            return "ubuntu-arm64"
        if arch == "x86_64":
            glibc = platform.libc_ver()[1]
            newer = tuple(int(p) for p in glibc.split(".")[:2]) > (2, 28) if glibc else True
            return "ubuntu-x64" if newer else "almalinux-x64"
    print("LLVM pre-compiled image is not available for this platform. "
          "Proceeding with user-configured LLVM from source build.")
    return None


class Package:

    def __init__(self, package, name, url, include_flag, lib_flag, syspath_var_name, sha256=None):
        self.package, self.name, self.url, self.sha256 = package, name, url, sha256
        self.include_flag, self.lib_flag, self.syspath_var_name = include_flag, lib_flag, syspath_var_name


def get_llvm_package_info(suffix_override=None):
    suffix = get_llvm_system_suffix(suffix_override)
    pin = Path(get_base_dir()) / LLVM_PIN_FILE
    # %%IF JSON_PIN%%
    info = json.loads(pin.read_text())
    name = f"llvm-{info['llvm_hash'][:8]}-{suffix}-{info['build_number']}"
    sha = info["sha256sum"][suffix]
    # %%ELSE%%
    name = f"llvm-{pin.read_text()[:8]}-{suffix}"
    sha = None
    # %%ENDIF%%
    return Package("llvm", name, f"{LLVM_BUILDS_URL}/{name}.tar.gz", "LLVM_INCLUDE_DIRS", "LLVM_LIBRARY_DIR",
                   "LLVM_SYSPATH", sha)


# %%IF PYBIND11_DOWNLOAD%%
def get_pybind11_package_info():
    """3.0/3.1: pybind11 from GitHub's release archive (top folder pybind11-<version>/)."""
    version = (Path(get_base_dir()) / "cmake" / "pybind11-version.txt").read_text().strip()
    name = f"pybind11-{version}"
    url = f"https://github.com/pybind/pybind11/archive/refs/tags/v{version}.tar.gz"
    return Package("pybind11", name, url, "PYBIND11_INCLUDE_DIR", "", "PYBIND11_SYSPATH")


# %%ENDIF%%
def get_json_package_info():
    version = (Path(get_base_dir()) / "cmake" / "json-version.txt").read_text().strip()
    return Package("json", "", f"{JSON_URL}/{version}/include.zip", "JSON_INCLUDE_DIR", "", "JSON_SYSPATH")


def get_thirdparty_package(p, syspath, offline, cache_path):
    """The folder of package `p`: `syspath` when given, else downloaded into <cache>/<package>."""
    if syspath:
        return syspath
    if offline:
        raise RuntimeError(f"Requested an offline build but {p.syspath_var_name} is not set")
    package_root_dir = os.path.join(cache_path, p.package)
    package_dir = os.path.join(package_root_dir, p.name)
    version_file_path = os.path.join(package_dir, "version.txt")
    if not os.path.exists(version_file_path) or Path(version_file_path).read_text() != p.url:
        shutil.rmtree(package_root_dir, ignore_errors=True)
        os.makedirs(package_root_dir, exist_ok=True)
        print(f"downloading and extracting {p.url} ...", file=sys.stderr, flush=True)
        with open_url(p.url) as response:
            data = response.read()
        if p.sha256 is not None and hashlib.sha256(data).hexdigest() != p.sha256:
            raise RuntimeError(f"{p.package} download from {p.url} failed checksum validation.")
        if p.url.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                archive.extractall(package_root_dir)
        else:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
                archive.extractall(path=package_root_dir)
        os.makedirs(package_dir, exist_ok=True)
        Path(version_file_path).write_text(p.url)
    return package_dir


# -- NVIDIA tools: downloaded and copied into third_party/nvidia/backend ------------------------------


def download_and_copy(name, component, src, dst, variable, version, overrides, offline, cache_path):
    if offline:
        return
    if variable in overrides:
        return
    system = "linux"
    arch = {"arm64": "sbsa", "aarch64": "sbsa"}.get(platform.machine(), platform.machine())
    archive = f"{component}-{system}-{arch}-{version}-archive"
    url = f"{NVIDIA_REDIST_URL}/{component}/{system}-{arch}/{archive}.tar.xz"
    tmp_path = os.path.join(cache_path, "nvidia", name)  # path to cache the download
    dst_path = os.path.join(get_base_dir(), "third_party", "nvidia", "backend", dst)  # final binary path
    src_path = os.path.join(tmp_path, archive, src)
    download = not os.path.exists(src_path)
    if os.path.isfile(dst_path) and shutil.which(dst_path) is not None:
        curr_version = subprocess.check_output([dst_path, "--version"]).decode("utf-8").strip()
        found = re.search(r"V([.|\d]+)", curr_version)
        download = download or found is None or found.group(1) != version
    if download:
        print(f"downloading and extracting {url} ...", file=sys.stderr, flush=True)
        with open_url(url) as response:
            with tarfile.open(fileobj=io.BytesIO(response.read()), mode="r:*") as file:
                file.extractall(path=tmp_path)
    os.makedirs(os.path.dirname(dst_path), exist_ok=True)
    print(f"copy {src_path} to {dst_path} ...", file=sys.stderr, flush=True)
    if os.path.isdir(src_path):
        shutil.copytree(src_path, dst_path, dirs_exist_ok=True)
    else:
        shutil.copy(src_path, dst_path)


def download_and_copy_dependencies(overrides, offline, cache_path):
    """`overrides`: the tool variables that are set (the environment before 3.7, CMake's cache since)."""
    versions = json.loads((Path(get_base_dir()) / "cmake" / "nvidia-toolchain-version.json").read_text())
    tools = [("nvcc", "cuda_nvcc", "bin/ptxas", "bin/ptxas", "TRITON_PTXAS_PATH", versions["ptxas"])]
    # %%IF PTXAS_BLACKWELL%%
    # We download a separate ptxas for blackwell, since there are some bugs when using it for hopper
    tools.append(("nvcc-blackwell", "cuda_nvcc", "bin/ptxas", "bin/ptxas-blackwell", "%%BLACKWELL_VARIABLE%%",
                  versions["ptxas-blackwell"]))
    # %%ENDIF%%
    tools += [
        ("cuobjdump", "cuda_cuobjdump", "bin/cuobjdump", "bin/cuobjdump", "TRITON_CUOBJDUMP_PATH",
         versions["cuobjdump"]),
        ("nvdisasm", "cuda_nvdisasm", "bin/nvdisasm", "bin/nvdisasm", "TRITON_NVDISASM_PATH", versions["nvdisasm"]),
        ("cudart", "cuda_cudart", "include", "include", "TRITON_CUDART_PATH", versions["cudart"]),
    ]
    for name, component, src, dst, variable, version in tools:
        download_and_copy(name, component, src, dst, variable, version, overrides, offline, cache_path)


# %%IF AMD_CODEGEN%%
AMD_CODEGEN_LIBRARY = "libtriton_amd_codegen.so"


def download_and_copy_amd_codegen(override, offline, cache_path, suffix=None):
    """The AMD codegen library (cmake/amd-llvm-info.json) into third_party/amd/backend/lib."""
    if override:
        return
    info = json.loads((Path(get_base_dir()) / "cmake" / "amd-llvm-info.json").read_text())
    suffix = get_llvm_system_suffix(suffix)
    name = f"amd-codegen-{info['llvm_hash'][:8]}-{suffix}-{info['build_number']}"
    sha256 = info["sha256sum"].get(suffix)
    if sha256 is None:
        raise RuntimeError(f"no published AMD codegen library for {suffix} (building it from the bootstrap LLVM"
                           " is not part of the test world)")
    if offline:
        # Test world wording: upstream's own message for this case was not read.
        raise RuntimeError("Requested an offline build but TRITON_AMD_CODEGEN_PATH is not set")
    package = Package("codegen", name, f"{LLVM_BUILDS_URL}/{name}.tar.gz", "", "", "TRITON_AMD_CODEGEN_PATH", sha256)
    folder = get_thirdparty_package(package, None, False, os.path.join(cache_path, "amd"))
    dst = os.path.join(get_base_dir(), "third_party", "amd", "backend", "lib", AMD_CODEGEN_LIBRARY)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(os.path.join(folder, "lib", AMD_CODEGEN_LIBRARY), dst)


# %%ENDIF%%
# %%IF DOWNLOADS_IN_CMAKE%%
# -- the command line CMake runs (3.7 on) ------------------------------------------------------------

_TOOL_OPTIONS = {
    "--triton-ptxas-path": "TRITON_PTXAS_PATH",
    "--triton-ptxas-blackwell-path": "TRITON_PTXAS_BLACKWELL_PATH",
    "--triton-cuobjdump-path": "TRITON_CUOBJDUMP_PATH",
    "--triton-nvdisasm-path": "TRITON_NVDISASM_PATH",
    "--triton-cudart-path": "TRITON_CUDART_PATH",
    # Given by CMake like the others; the world downloads no CRT headers or CUPTI for them to replace.
    "--triton-cudacrt-path": "TRITON_CUDACRT_PATH",
    "--triton-cupti-include-path": "TRITON_CUPTI_INCLUDE_PATH",
    "--triton-cupti-lib-path": "TRITON_CUPTI_LIB_PATH",
}


def _cmake_escape(value):
    return str(value).replace("\\", "/").replace('"', '\\"')


def write_thirdparty_cmake_vars(args, offline):
    values = {}
    if "llvm" in args.packages:
        llvm = get_thirdparty_package(get_llvm_package_info(args.triton_llvm_system_suffix), args.llvm_syspath,
                                      offline, args.triton_cache_path)
        values.update(LLVM_INCLUDE_DIRS=f"{llvm}/include", LLVM_LIBRARY_DIR=f"{llvm}/lib", LLVM_SYSPATH=llvm)
    if "json" in args.packages:
        json_dir = get_thirdparty_package(get_json_package_info(), args.json_syspath, offline, args.triton_cache_path)
        values.update(JSON_INCLUDE_DIR=f"{json_dir}/include", JSON_SYSPATH=json_dir)
    with open(args.output, "w") as output_file:
        for key, value in values.items():
            output_file.write(f'if(NOT DEFINED {key} OR "${{{key}}}" STREQUAL "")\n')
            output_file.write(f'  set({key} "{_cmake_escape(value)}")\n')
            output_file.write("endif()\n")


def main(argv):
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["write_thirdparty_cmake_vars", "download_and_copy_dependencies"])
    parser.add_argument("--triton-cache-path", required=True)
    parser.add_argument("--llvm-syspath")
    parser.add_argument("--json-syspath")
    parser.add_argument("--triton-offline-build", default="OFF")
    parser.add_argument("--triton-llvm-system-suffix")
    parser.add_argument("--triton-amd-codegen-path")
    parser.add_argument("--output")
    parser.add_argument("--packages", nargs="*", default=[])
    for option in _TOOL_OPTIONS:
        parser.add_argument(option)
    args = parser.parse_args(argv)
    offline = args.triton_offline_build.upper() in ["ON", "1", "YES", "TRUE", "Y"]
    if args.command == "write_thirdparty_cmake_vars":
        write_thirdparty_cmake_vars(args, offline)
        return 0
    overrides = {variable for option, variable in _TOOL_OPTIONS.items()
                 if getattr(args, option[2:].replace("-", "_"))}
    download_and_copy_dependencies(overrides, offline, args.triton_cache_path)
    # %%IF AMD_CODEGEN%%
    download_and_copy_amd_codegen(args.triton_amd_codegen_path, offline, args.triton_cache_path,
                                  args.triton_llvm_system_suffix)
    # %%ENDIF%%
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except RuntimeError as exc:  # CMake shows it and stops (COMMAND_ERROR_IS_FATAL)
        print(f"RuntimeError: {exc}", file=sys.stderr)
        sys.exit(1)
# %%ENDIF%%
