import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), %%HELPERS_DIR%%))
from build_helpers import (  # noqa: E402
    DOWNLOADS_IN_CMAKE,
    check_env_flag,
    get_base_dir,
    get_cmake_dir,
    get_llvm_syspath,
    get_triton_cache_path,
    is_offline_build,
)

BINDINGS = "%%BINDINGS%%"


def get_build_type():
    if check_env_flag("DEBUG"):
        return "Debug"
    elif check_env_flag("REL_WITH_DEB_INFO"):
        return "RelWithDebInfo"
    elif check_env_flag("TRITON_REL_BUILD_WITH_ASSERTS"):
        return "TritonRelBuildWithAsserts"
    elif check_env_flag("TRITON_BUILD_WITH_O1"):
        return "TritonBuildWithO1"
    else:
        # TODO: change to release when stable enough
        return "TritonRelBuildWithAsserts"


def get_bindings_cmake_args():
    if BINDINGS == "nanobind":
        import nanobind

        return [f"-Dnanobind_ROOT={nanobind.cmake_dir()}"]
    if os.getenv("PYBIND11_SYSPATH"):
        root = os.environ["PYBIND11_SYSPATH"]
        return [f"-Dpybind11_INCLUDE_DIR={root}/include", f"-Dpybind11_DIR={root}/share/cmake/pybind11"]
    import pybind11

    return [f"-Dpybind11_INCLUDE_DIR={pybind11.get_include()}", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}"]


def is_git_repo():
    return os.path.exists(os.path.join(get_base_dir(), ".git"))


def get_git_commit_hash(length=8):
    try:
        cmd = ["git", "rev-parse", f"--short={length}", "HEAD"]
        return "+git{}".format(subprocess.check_output(cmd, cwd=get_base_dir()).strip().decode("utf-8"))
    except Exception:
        return ""


def get_git_branch():
    try:
        cmd = ["git", "rev-parse", "--abbrev-ref", "HEAD"]
        return subprocess.check_output(cmd, cwd=get_base_dir()).strip().decode("utf-8")
    except Exception:
        return ""


def get_git_version_suffix():
    if not is_git_repo():
        return ""  # Not a git checkout
    branch = get_git_branch()
    if branch.startswith("release"):
        return ""
    else:
        return get_git_commit_hash()


def get_triton_version_suffix():
    suffix = get_git_version_suffix()
    extra = os.environ.get("TRITON_WHEEL_VERSION_SUFFIX", "")
    if "+" in suffix and "+" in extra:
        extra = extra.replace("+", "-")
    return suffix + extra


TRITON_VERSION = "%%TRITON_VERSION%%" + get_triton_version_suffix()


class CMakeBuildPy(build_py):

    def run(self) -> None:
        self.run_command("build_ext")
        return super().run()


class CMakeExtension(Extension):

    def __init__(self, name, path, sourcedir=""):
        Extension.__init__(self, name, sources=[])
        self.sourcedir = os.path.abspath(sourcedir)
        self.path = path


class CMakeBuild(build_ext):

    user_options = build_ext.user_options + [("base-dir=", None, "base directory of Triton")]

    def initialize_options(self):
        build_ext.initialize_options(self)
        self.base_dir = get_base_dir()

    def finalize_options(self):
        build_ext.finalize_options(self)

    def run(self):
        try:
            out = subprocess.check_output(["cmake", "--version"])
        except OSError:
            raise RuntimeError("CMake must be installed to build the following extensions: " +
                               ", ".join(e.name for e in self.extensions))

        match = re.search(r"version\s*(?P<major>\d+)\.(?P<minor>\d+)([\d.]+)?", out.decode())
        cmake_major, cmake_minor = int(match.group("major")), int(match.group("minor"))
        if (cmake_major, cmake_minor) < (3, 20):
            raise RuntimeError("CMake >= 3.20.0 is required")

        for ext in self.extensions:
            self.build_extension(ext)

    def get_llvm_cmake_args(self):
        if DOWNLOADS_IN_CMAKE:
            return []  # CMake finds or downloads LLVM itself (LLVM_SYSPATH is passed through)
        llvm_path = get_llvm_syspath()
        return [
            f"-DLLVM_INCLUDE_DIRS={llvm_path}/include",
            f"-DLLVM_LIBRARY_DIR={llvm_path}/lib",
            f"-DLLVM_SYSPATH={llvm_path}",
        ]

    def build_extension(self, ext):
        lit_dir = shutil.which("lit")
        ninja_dir = shutil.which("ninja")
        assert ninja_dir is not None, "ninja not found!"
        extdir = os.path.abspath(os.path.dirname(self.get_ext_fullpath(ext.path)))
        wheeldir = os.path.dirname(extdir)
        os.makedirs(extdir, exist_ok=True)
        # python directories
        python_include_dir = sysconfig.get_path("platinclude")
        cmake_args = [
            "-G", "Ninja",  # Ninja is much faster than make
            "-DCMAKE_MAKE_PROGRAM=" + ninja_dir,  # Pass explicit path to ninja otherwise cmake may cache a temporary path
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            "-DLLVM_ENABLE_WERROR=ON",
            "-DCMAKE_LIBRARY_OUTPUT_DIRECTORY=" + extdir,
            "-DTRITON_BUILD_PYTHON_MODULE=ON",
            "-DPython3_EXECUTABLE:FILEPATH=" + sys.executable,
            "-DPython3_INCLUDE_DIR=" + python_include_dir,
            "-DTRITON_CODEGEN_BACKENDS=nvidia;amd",
            "-DTRITON_WHEEL_DIR=" + wheeldir,
            "-DTRITON_CACHE_PATH=" + get_triton_cache_path(),
            "-DTRITON_VERSION=" + TRITON_VERSION,
        ]
        if lit_dir is not None:
            cmake_args.append("-DLLVM_EXTERNAL_LIT=" + lit_dir)
        cmake_args.extend(self.get_llvm_cmake_args())
        cmake_args.extend(get_bindings_cmake_args())

        # configuration
        cfg = get_build_type()
        build_args = ["--config", cfg]
        cmake_args += ["-DCMAKE_BUILD_TYPE=" + cfg]
        if "--jobserver-auth=fifo:" not in os.environ.get("MAKEFLAGS", ""):
            max_jobs = os.getenv("MAX_JOBS", str(2 * os.cpu_count()))
            build_args += ["-j" + max_jobs]

        if check_env_flag("TRITON_BUILD_WITH_CLANG_LLD"):
            cmake_args += [
                "-DCMAKE_C_COMPILER=clang",
                "-DCMAKE_CXX_COMPILER=clang++",
                "-DCMAKE_LINKER=lld",
                "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld",
                "-DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld",
                "-DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld",
            ]

        if check_env_flag("TRITON_BUILD_WITH_ASAN"):
            cmake_args += [
                "-DCMAKE_C_FLAGS=-fsanitize=address",
                "-DCMAKE_CXX_FLAGS=-fsanitize=address",
            ]

        if is_offline_build():
            # unit tests would download googletest
            cmake_args += ["-DTRITON_BUILD_UT=OFF"]

        passthrough_args = [%%PASSTHROUGH%%]
        cmake_args += [f"-D{option}={os.getenv(option)}" for option in passthrough_args if option in os.environ]

        if os.getenv("TRITON_APPEND_CMAKE_ARGS"):
            cmake_args += shlex.split(os.environ["TRITON_APPEND_CMAKE_ARGS"])

        env = os.environ.copy()
        cmake_dir = get_cmake_dir()
        subprocess.check_call(["cmake", self.base_dir] + cmake_args, cwd=cmake_dir, env=env)
        subprocess.check_call(["cmake", "--build", "."] + build_args, cwd=cmake_dir)

        # Symlink compile_commands.json into the repository root for clangd and IDEs.
        compile_commands = cmake_dir / "compile_commands.json"
        link = Path(self.base_dir) / "compile_commands.json"
        if compile_commands.exists():
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(compile_commands)


def get_packages():
    return ["triton", "triton.language"]


setup(
    name=os.environ.get("TRITON_WHEEL_NAME", "triton"),
    version=TRITON_VERSION,
    author="Philippe Tillet",
    author_email="phil@openai.com",
    description="A language and compiler for custom Deep Learning operations",
    long_description="",
    packages=get_packages(),%%PACKAGE_DIR%%
    include_package_data=True,
    ext_modules=[CMakeExtension("triton", "triton/_C/")],
    cmdclass={
        "build_ext": CMakeBuild,
        "build_py": CMakeBuildPy,
    },
    zip_safe=False,
    keywords=["Compiler", "Deep Learning"],
    url="https://github.com/triton-lang/triton/",
    python_requires=">=3.9",
)
