"""What setup.py passes to CMake, read from real lines of triton-lang/triton's files at each era's
reference commit (/work/research/triton-build-eras.md §0; copied from the mirrors that carry upstream
history, trimmed to the lines that decide)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bootstrap.git.setup_py import SYSPATH_ALWAYS, SYSPATH_FROM_ENV, SYSPATH_NEVER, SetupPyArgs, read_setup_py_args

# python/setup.py @ 107465b86a80ef6d244c7b038bec418040e760a3 (3.0)
SETUP_30 = """\
    return Package("pybind11", name, url, "PYBIND11_INCLUDE_DIR", "", "PYBIND11_SYSPATH")
    return Package("llvm", name, url, "LLVM_INCLUDE_DIRS", "LLVM_LIBRARY_DIR", "LLVM_SYSPATH")
        if p.include_flag:
            thirdparty_cmake_args.append(f"-D{p.include_flag}={package_dir}/include")
        if p.lib_flag:
            thirdparty_cmake_args.append(f"-D{p.lib_flag}={package_dir}/lib")
    return thirdparty_cmake_args
            "-DCMAKE_VERBOSE_MAKEFILE:BOOL=ON", "-DPYTHON_INCLUDE_DIRS=" + python_include_dir,
"""
# python/setup.py @ dbc771e85a7b03eab2b46b706d3ecf90878531d6 (3.2)
SETUP_32 = """\
    return check_env_flag("TRITON_OFFLINE_BUILD", "")
            raise RuntimeError(f"Requested an offline build but {p.syspath_var_name} is not set")
        return [f"-DPYBIND11_INCLUDE_DIR={pybind11_include_dir}"]
            "-DCMAKE_VERBOSE_MAKEFILE:BOOL=ON", "-DPYTHON_INCLUDE_DIRS=" + python_include_dir,
"""
# python/setup.py @ 96316ce50fade7e209553aba4898cd9b82aab83b (3.3)
SETUP_33 = """\
    return check_env_flag("TRITON_OFFLINE_BUILD", "")
            raise RuntimeError(f"Requested an offline build but {p.syspath_var_name} is not set")
        return [f"-Dpybind11_INCLUDE_DIR='{pybind11_include_dir}'", f"-Dpybind11_DIR='{pybind11.get_cmake_dir()}'"]
            "-DPython3_INCLUDE_DIR=" + python_include_dir,
    dst_path="bin/ptxas-blackwell",
"""
# setup.py @ 9ef20a1619d778ad444d776e074fdab3d31a87d5 (3.4)
SETUP_34 = """\
    return check_env_flag("TRITON_OFFLINE_BUILD", "")
        if p.syspath_var_name:
            thirdparty_cmake_args.append(f"-D{p.syspath_var_name}={package_dir}")
        return [f"-Dpybind11_INCLUDE_DIR='{pybind11_include_dir}'", f"-Dpybind11_DIR='{pybind11.get_cmake_dir()}'"]
            "-DPython3_EXECUTABLE:FILEPATH=" + sys.executable, "-DPython3_INCLUDE_DIR=" + python_include_dir,
            "-DTRITON_WHEEL_DIR=" + wheeldir
"""
# setup.py and python/build_helpers.py @ 004d7f5f58c2299a714e20c214893d4907dc8509 (3.6)
SETUP_36 = (
    SETUP_34
    + """\
        dst_path="bin/ptxas-blackwell",
"""
)
HELPERS_36 = """\
    cmake_dir = os.getenv("TRITON_BUILD_DIR", default=_get_cmake_dir())
"""
# setup.py @ 6d2e38bfe1c96f7cacaf85661fe28d73473ca133 (3.7), CMakeLists.txt at the same commit
SETUP_37 = """\
    return check_env_flag("TRITON_OFFLINE_BUILD", "")
        return [f"-Dpybind11_INCLUDE_DIR='{pybind11_include_dir}'", f"-Dpybind11_DIR='{pybind11.get_cmake_dir()}'"]
            "-DPython3_INCLUDE_DIR=" + python_include_dir,
            "-DTRITON_WHEEL_DIR=" + wheeldir,
            f"-DTRITON_CACHE_PATH={get_triton_cache_path()}",
            "TRITON_OFFLINE_BUILD",
            "LLVM_SYSPATH",
"""
CMAKE_37 = """\
    "${CMAKE_CURRENT_SOURCE_DIR}/python/build_helpers.py"
"""
HELPERS_37 = """\
    cmake_dir = os.getenv("TRITON_BUILD_DIR", default=_get_cmake_dir())
        dst_path="bin/ptxas-blackwell",
"""
# setup.py @ 1d2da15d2b1f1dfe8f64ddcc2acfe530ff406ffd (main, 2026-08-20)
SETUP_MAIN = """\
    return check_env_flag("TRITON_OFFLINE_BUILD", "")
        return [f"-Dnanobind_ROOT='{nanobind.cmake_dir()}'"]
            "-DPython3_INCLUDE_DIR=" + python_include_dir,
            "-DTRITON_WHEEL_DIR=" + wheeldir,
            f"-DTRITON_CACHE_PATH={get_triton_cache_path()}",
            f"-DTRITON_VERSION={TRITON_VERSION}",
            "LLVM_SYSPATH",
"""


def read(files: dict[str, str]) -> Callable[[str], str | None]:
    return files.get


ERAS = {
    "3.0": ("python", {"python/setup.py": SETUP_30}),
    "3.2": ("python", {"python/setup.py": SETUP_32}),
    "3.3": ("python", {"python/setup.py": SETUP_33}),
    "3.4": (".", {"setup.py": SETUP_34}),
    "3.6": (".", {"setup.py": SETUP_36, "python/build_helpers.py": HELPERS_36}),
    "3.7": (".", {"setup.py": SETUP_37, "CMakeLists.txt": CMAKE_37, "python/build_helpers.py": HELPERS_37}),
    "main": (".", {"setup.py": SETUP_MAIN, "CMakeLists.txt": CMAKE_37, "python/build_helpers.py": HELPERS_37}),
}


@pytest.mark.parametrize(
    ("era", "syspath", "dirs", "wheel", "cache", "version"),
    [
        ("3.0", SYSPATH_NEVER, True, False, False, False),
        ("3.2", SYSPATH_NEVER, True, False, False, False),
        ("3.3", SYSPATH_NEVER, True, False, False, False),
        ("3.4", SYSPATH_ALWAYS, True, True, False, False),
        ("3.6", SYSPATH_ALWAYS, True, True, False, False),
        ("3.7", SYSPATH_FROM_ENV, False, True, True, False),
        ("main", SYSPATH_FROM_ENV, False, True, True, True),
    ],
)
def test_cmake_variables_by_era(era: str, syspath: str, dirs: bool, wheel: bool, cache: bool, version: bool) -> None:
    where, files = ERAS[era]
    args = read_setup_py_args(read(files), where)
    assert (args.llvm_syspath, args.llvm_dirs, args.wheel_dir, args.cache_path, args.version) == (
        syspath,
        dirs,
        wheel,
        cache,
        version,
    )
    assert args.downloads_in_cmake == (era in ("3.7", "main"))


def test_python_include_bindings_and_switches_by_era() -> None:
    by_era = {era: read_setup_py_args(read(files), where) for era, (where, files) in ERAS.items()}
    assert by_era["3.0"].python_include == by_era["3.2"].python_include == "PYTHON_INCLUDE_DIRS"
    assert by_era["3.3"].python_include == "Python3_INCLUDE_DIR"
    assert by_era["3.0"].bindings == by_era["3.2"].bindings == ("PYBIND11_INCLUDE_DIR",)
    assert by_era["3.3"].bindings == by_era["3.7"].bindings == ("pybind11_INCLUDE_DIR", "pybind11_DIR")
    assert by_era["main"].bindings == ("nanobind_ROOT",)
    assert not by_era["3.0"].offline_flag and by_era["3.2"].offline_flag
    assert [e for e, a in by_era.items() if a.build_dir_env] == ["3.6", "3.7", "main"]
    assert [e for e, a in by_era.items() if a.ptxas_blackwell] == ["3.3", "3.6", "3.7", "main"]


def test_a_layout_without_files_assumes_current_main() -> None:
    assert SetupPyArgs().to_json()["llvm_syspath"] == SYSPATH_FROM_ENV
    assert read_setup_py_args(read({}), ".").llvm_syspath == SYSPATH_NEVER


def test_python_bounds_of_newest_and_older_setup_py() -> None:
    """Newest main: MIN_PYTHON/MAX_PYTHON make python_requires ">=3.10,<3.15" (setup.py @ 1d2da15d);
    before, a lower bound only (">=3.9")."""
    from bootstrap.git.setup_py import python_bounds, read_setup_py_args

    newest = "MIN_PYTHON = (3, 10)\nMAX_PYTHON = (3, 14)\nsetup(python_requires=PYTHON_REQUIRES)\n"
    args = read_setup_py_args(lambda rel: newest if rel == "setup.py" else None, ".")
    assert args.python_requires == ">=3.10,<3.15"
    assert args.refuses("3.15.0") and args.refuses("3.9.18") and not args.refuses("3.14.2")
    assert python_bounds('setup(\n    python_requires=">=3.9",\n)') == ((3, 9), None)
    assert python_bounds('python_requires=">=3.8,<3.13"') == ((3, 8), (3, 12))
    assert python_bounds("setup(name='triton')") == (None, None)
    assert not read_setup_py_args(lambda rel: None, ".").refuses("3.99.0")
