"""Helpers shared by setup.py and CMakeLists.txt: build directory, environment flags, LLVM download."""

import json
import os
import platform
import sys
import sysconfig
import tarfile
import urllib.request
from pathlib import Path

LLVM_PIN_FILE = "%%LLVM_PIN_FILE%%"
SETUP_PY_IN_PYTHON_DIR = %%IN_PYTHON_DIR%%
# Since 2026-02 the LLVM download happens in CMake (which calls this file); before, in setup.py.
DOWNLOADS_IN_CMAKE = %%DOWNLOADS_IN_CMAKE%%
LLVM_BUILDS_URL = "https://oaitriton.blob.core.windows.net/public/llvm-builds"
DOWNLOAD_TIMEOUT = 20


def get_base_dir():
    return os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))


def check_env_flag(name: str, default: str = "") -> bool:
    # Taken from https://github.com/pytorch/pytorch/blob/master/tools/setup_helpers/env.py
    return os.getenv(name, default).upper() in ["ON", "1", "YES", "TRUE", "Y"]


def is_offline_build() -> bool:
    """Downstream projects and distributions which bootstrap their own dependencies from scratch and
    run builds in offline sandboxes may set `TRITON_OFFLINE_BUILD` in the build environment to
    prevent any attempts at downloading packages at build time."""
    return check_env_flag("TRITON_OFFLINE_BUILD")


def get_triton_cache_path():
    user_home = os.getenv("TRITON_HOME")
    if not user_home:
        user_home = os.getenv("HOME") or os.getenv("USERPROFILE") or os.getenv("HOMEPATH") or None
    if not user_home:
        raise RuntimeError("Could not find user home directory")
    return os.path.join(user_home, ".triton")


def get_cmake_dir():
    if os.getenv("TRITON_BUILD_DIR"):
        cmake_dir = Path(os.environ["TRITON_BUILD_DIR"]).absolute()
    else:
        plat_name = sysconfig.get_platform()
        python_version = sysconfig.get_python_version()
        dir_name = f"cmake.{plat_name}-{sys.implementation.name}-{python_version}"
        build_root = Path(get_base_dir()) / ("python/build" if SETUP_PY_IN_PYTHON_DIR else "build")
        cmake_dir = build_root / dir_name
    cmake_dir.mkdir(parents=True, exist_ok=True)
    return cmake_dir


def get_llvm_system_suffix():
    if os.getenv("TRITON_LLVM_SYSTEM_SUFFIX"):
        return os.environ["TRITON_LLVM_SYSTEM_SUFFIX"]
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


def get_llvm_package_info():
    """(name, url, sha256 or None) of the prebuilt LLVM for the pinned commit."""
    suffix = get_llvm_system_suffix()
    pin = Path(get_base_dir()) / LLVM_PIN_FILE
    if LLVM_PIN_FILE.endswith(".json"):
        info = json.loads(pin.read_text())
        name = f"llvm-{info['llvm_hash'][:8]}-{suffix}-{info['build_number']}"
        sha = info.get("sha256sum", {}).get(suffix)
    else:
        name = f"llvm-{pin.read_text().strip()[:8]}-{suffix}"
        sha = None
    return name, f"{LLVM_BUILDS_URL}/{name}.tar.gz", sha


def get_llvm_syspath():
    """LLVM_SYSPATH if set; else the prebuilt package, downloaded into $TRITON_HOME/.triton/llvm."""
    if os.getenv("LLVM_SYSPATH"):
        return os.environ["LLVM_SYSPATH"]
    if is_offline_build():
        raise RuntimeError("Requested an offline build but LLVM_SYSPATH is not set")
    name, url, _sha = get_llvm_package_info()
    package_root = os.path.join(get_triton_cache_path(), "llvm")
    package_dir = os.path.join(package_root, name)
    version_file = os.path.join(package_dir, "version.txt")
    if not (os.path.exists(version_file) and Path(version_file).read_text() == url):
        print(f"downloading and extracting {url} ...", file=sys.stderr, flush=True)
        os.makedirs(package_root, exist_ok=True)
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
            with tarfile.open(fileobj=response, mode="r|*") as archive:
                archive.extractall(path=package_root)
        Path(version_file).write_text(url)
    return package_dir


if __name__ == "__main__":
    # CMake calls `build_helpers.py download-llvm --cache DIR` and reads the path from stdout.
    if len(sys.argv) >= 2 and sys.argv[1] == "download-llvm":
        if "--cache" in sys.argv:
            os.environ["TRITON_HOME"] = str(Path(sys.argv[sys.argv.index("--cache") + 1]).parent)
        try:
            path = get_llvm_syspath()
        except Exception as exc:  # reported by CMake as a failed download
            print(f"error: {exc!r}", file=sys.stderr)
            sys.exit(1)
        print(path)
        sys.exit(0)
    print("usage: build_helpers.py download-llvm [--cache DIR]", file=sys.stderr)
    sys.exit(2)
