import os
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
from build_helpers import check_env_flag, get_base_dir, get_cmake_dir, get_triton_cache_path  # noqa: E402

# %%IF !DOWNLOADS_IN_CMAKE%%
from build_helpers import (  # noqa: E402
    download_and_copy_dependencies,
    get_json_package_info,
    get_llvm_package_info,
    get_thirdparty_package,
)

# %%ENDIF%%
# %%IF PYBIND11_DOWNLOAD%%
from build_helpers import get_pybind11_package_info  # noqa: E402

# %%ENDIF%%
# %%IF OFFLINE_FLAG%%
from build_helpers import is_offline_build  # noqa: E402

# %%ENDIF%%


def get_build_type():
    if check_env_flag("DEBUG"):
        return "Debug"
    elif check_env_flag("REL_WITH_DEB_INFO"):
        return "RelWithDebInfo"
    elif check_env_flag("TRITON_REL_BUILD_WITH_ASSERTS"):
        return "TritonRelBuildWithAsserts"
    # %%IF BUILD_WITH_O1%%
    elif check_env_flag("TRITON_BUILD_WITH_O1"):
        return "TritonBuildWithO1"
    # %%ENDIF%%
    else:
        # TODO: change to release when stable enough
        return "TritonRelBuildWithAsserts"


def get_bindings_cmake_args():
    # %%IF PYBIND11_DOWNLOAD%%
    return []  # 3.0/3.1: pybind11 is one of the downloaded packages (get_thirdparty_cmake_args)
    # %%ENDIF%%
    # %%IF NANOBIND%%
    import nanobind

    return [f"-Dnanobind_ROOT='{nanobind.cmake_dir()}'"]
    # %%ELSE%%
    pybind11_sys_path = os.getenv("PYBIND11_SYSPATH")
    if pybind11_sys_path:
        pybind11_include_dir = os.path.join(pybind11_sys_path, "include")
    else:
        import pybind11

        pybind11_include_dir = pybind11.get_include()
    # %%IF PYBIND11_CMAKE_DIR%%
    import pybind11

    return [f"-Dpybind11_INCLUDE_DIR='{pybind11_include_dir}'", f"-Dpybind11_DIR='{pybind11.get_cmake_dir()}'"]
    # %%ELSE%%
    return [f"-DPYBIND11_INCLUDE_DIR={pybind11_include_dir}"]
    # %%ENDIF%%
    # %%ENDIF%%


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
    # %%IF !GIT_SUFFIX%%
    return ""  # Triton before 3.2 has no +git<sha> suffix
    # %%ENDIF%%
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
# Test world: real Triton keeps only the base version in triton/__init__.py; the mini reports the full one.
Path(get_base_dir(), "python", "triton", "_version.py").write_text(f"version = {TRITON_VERSION!r}\n")


# %%IF !DOWNLOADS_IN_CMAKE%%
def env_overrides():
    return {name for name in os.environ if name.startswith("TRITON_") and name.endswith("_PATH")}


def offline():
    # %%IF OFFLINE_FLAG%%
    return is_offline_build()
    # %%ELSE%%
    return False
    # %%ENDIF%%


def get_thirdparty_packages(packages):
    """-D flags for LLVM (and json): the *_SYSPATH given in the environment, else the download."""
    thirdparty_cmake_args = []
    for p in packages:
        package_dir = get_thirdparty_package(p, os.getenv(p.syspath_var_name), offline(), get_triton_cache_path())
        if p.include_flag:
            thirdparty_cmake_args.append(f"-D{p.include_flag}={package_dir}/include")
        if p.lib_flag:
            thirdparty_cmake_args.append(f"-D{p.lib_flag}={package_dir}/lib")
        # %%IF PASSES_LLVM_SYSPATH%%
        if p.syspath_var_name:
            thirdparty_cmake_args.append(f"-D{p.syspath_var_name}={package_dir}")
        # %%ENDIF%%
    return thirdparty_cmake_args


# %%ENDIF%%


# %%IF COMPILE_COMMANDS_LINK%%
def update_symlink(link_path, source_path):
    """3.5 on (#7305): compile_commands.json linked at the repository root, whatever was there."""
    source_path = Path(source_path)
    link_path = Path(link_path)

    if link_path.is_symlink():
        link_path.unlink()
    elif link_path.exists():
        shutil.rmtree(link_path)

    print(f"creating symlink: {link_path} -> {source_path}", file=sys.stderr)
    link_path.absolute().parent.mkdir(parents=True, exist_ok=True)  # Ensure link's parent directory exists
    link_path.symlink_to(source_path.absolute(), target_is_directory=True)


# %%ENDIF%%
def add_link_to_backends():
    """python/triton/backends/<name> -> third_party/<name>/backend, as setup.py's BackendInstaller links them."""
    for name in ("nvidia", "amd"):
        link = Path(get_base_dir()) / "python" / "triton" / "backends" / name
        source = Path(get_base_dir()) / "third_party" / name / "backend"
        if link.is_symlink() or link.exists():
            if link.is_symlink() and link.resolve() == source.resolve():
                continue
            link.unlink()
        link.symlink_to(source.absolute(), target_is_directory=True)


add_link_to_backends()
# %%IF DOWNLOADS_AT_IMPORT%%
download_and_copy_dependencies(env_overrides(), offline(), get_triton_cache_path())
# %%ENDIF%%


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
        # %%IF DOWNLOADS_AT_RUN%%
        download_and_copy_dependencies(env_overrides(), offline(), get_triton_cache_path())
        # %%ENDIF%%
        try:
            out = subprocess.check_output(["cmake", "--version"])
        except OSError:
            raise RuntimeError("CMake must be installed to build the following extensions: " +
                               ", ".join(e.name for e in self.extensions))

        match = re.search(r"version\s*(?P<major>\d+)\.(?P<minor>\d+)([\d.]+)?", out.decode())
        cmake_major, cmake_minor = int(match.group("major")), int(match.group("minor"))
        if (cmake_major, cmake_minor) < (%%CMAKE_FLOOR%%):
            raise RuntimeError("CMake >= %%CMAKE_FLOOR_TEXT%% is required")

        for ext in self.extensions:
            self.build_extension(ext)

    def get_thirdparty_cmake_args(self):
        # %%IF DOWNLOADS_IN_CMAKE%%
        return []  # CMake runs build_helpers.py itself; LLVM_SYSPATH & co. are passed through
        # %%ELSE%%
        packages = [get_llvm_package_info()]
        # %%IF PYBIND11_DOWNLOAD%%
        # 3.0/3.1: pybind11 downloaded into <cache>/pybind11 (PYBIND11_SYSPATH skips it).
        packages.insert(0, get_pybind11_package_info())
        # %%ENDIF%%
        if check_env_flag("TRITON_BUILD_PROTON", "ON"):  # json is needed by proton only
            packages.append(get_json_package_info())
        return get_thirdparty_packages(packages)
        # %%ENDIF%%

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
            # %%IF PYTHON_INCLUDE_DIRS%%
            "-DPYTHON_INCLUDE_DIRS=" + python_include_dir,
            # %%ELSE%%
            "-DPython3_INCLUDE_DIR=" + python_include_dir,
            # %%ENDIF%%
            "-DTRITON_CODEGEN_BACKENDS=nvidia;amd",
            # %%IF PASSES_WHEEL_DIR%%
            "-DTRITON_WHEEL_DIR=" + wheeldir,
            # %%ENDIF%%
            # %%IF DOWNLOADS_IN_CMAKE%%
            f"-DTRITON_CACHE_PATH={get_triton_cache_path()}",
            # %%ENDIF%%
            # %%IF PASSES_VERSION%%
            f"-DTRITON_VERSION={TRITON_VERSION}",
            # %%ENDIF%%
        ]
        if lit_dir is not None:
            cmake_args.append("-DLLVM_EXTERNAL_LIT=" + lit_dir)
        cmake_args.extend(self.get_thirdparty_cmake_args())
        cmake_args.extend(get_bindings_cmake_args())

        # configuration
        cfg = get_build_type()
        build_args = ["--config", cfg]
        cmake_args += ["-DCMAKE_BUILD_TYPE=" + cfg]
        # %%IF JOBSERVER_SKIP%%
        # main (#10996): under a GNU make jobserver, ninja takes its jobs from make.
        if "--jobserver-auth=fifo:" not in os.environ.get("MAKEFLAGS", ""):
            max_jobs = os.getenv("MAX_JOBS", str(2 * os.cpu_count()))
            build_args += ["-j" + max_jobs]
        # %%ELSE%%
        max_jobs = os.getenv("MAX_JOBS", str(2 * os.cpu_count()))
        build_args += ["-j" + max_jobs]
        # %%ENDIF%%

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

        # %%IF OFFLINE_FLAG%%
        if is_offline_build():
            # unit tests would download googletest
            cmake_args += ["-DTRITON_BUILD_UT=OFF"]
        # %%ENDIF%%

        # %%IF CCACHE_FROM_SETUP_PY%%
        # <= 3.2: no ccache option in CMake; the C++ launcher alone, by its bare name.
        if check_env_flag("TRITON_BUILD_WITH_CCACHE"):
            cmake_args += [
                "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
            ]

        # %%ENDIF%%
        # %%IF PASSTHROUGH_LIST%%
        passthrough_args = [%%PASSTHROUGH%%]
        cmake_args += [f"-D{option}={os.getenv(option)}" for option in passthrough_args if option in os.environ]
        # %%ELSE%%
        if not check_env_flag("TRITON_BUILD_PROTON", "ON"):  # Default ON
            cmake_args += ["-DTRITON_BUILD_PROTON=OFF"]
        # %%ENDIF%%

        # %%IF APPEND_CMAKE_ARGS%%
        cmake_args_append = os.getenv("TRITON_APPEND_CMAKE_ARGS")
        if cmake_args_append is not None:
            cmake_args += shlex.split(cmake_args_append)

        # %%ENDIF%%

        env = os.environ.copy()
        cmake_dir = get_cmake_dir()
        subprocess.check_call(["cmake", self.base_dir] + cmake_args, cwd=cmake_dir, env=env)
        # %%IF COMPILE_COMMANDS_LINK%%
        update_symlink(Path(self.base_dir) / "compile_commands.json", cmake_dir / "compile_commands.json")
        # %%ENDIF%%
        subprocess.check_call(["cmake", "--build", "."] + build_args, cwd=cmake_dir)


def get_packages():
    return ["triton", "triton.language", "triton.backends", "triton.backends.nvidia", "triton.backends.amd"]


setup(
    name=os.environ.get("TRITON_WHEEL_NAME", "triton"),
    version=TRITON_VERSION,
    author="Philippe Tillet",
    author_email="phil@openai.com",
    description="A language and compiler for custom Deep Learning operations",
    long_description="",
    packages=get_packages(),%%PACKAGE_DIR%%
    package_data={"triton.backends.nvidia": ["bin/*", "include/*"], "triton.backends.amd": ["lib/*"]},
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
