"""Layout facts on real file contents of Triton commits from each era (triton-build-facts.md, 1.1).

The texts below are copied from triton-lang/triton at the commits named (trimmed to the lines that
matter, keeping their exact shape).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bootstrap.core.errors import MismatchError
from bootstrap.git.layout import (
    amd_llvm,
    binding,
    build_requires,
    cmake_minimum_required,
    detect_layout,
    has_build_llvm_script,
    llvm_pin,
    llvm_projects,
    llvm_repository,
    llvm_sources,
    setup_py_dir,
    triton_version,
)

# cmake/llvm-info.json (triton-lang/triton 0d6ac4a9, 3.8 era)
LLVM_INFO_JSON = """{
  "llvm_hash": "4611156032e1ebac68b2b8f6107b1475a7c60800",
  "build_number": 1,
  "sha256sum": {
    "almalinux-arm64": "beac52626f39c04deb159777ff795105631cf3307beb511b93c434a256947c8f",
    "almalinux-x64": "43002276539f05238c01e900e48b672b6bc656a537f8a21f35ada2d9087b45ac",
    "macos-arm64": "e20656a9d279be83d2bcb6bb70f3436031d3d70f2a07da566b413306050c78a4",
    "macos-x64": "a7782a7b8bce9e53aac26aa49363f847964f98c09633c140849ff59ed7e18ea1",
    "ubuntu-arm64": "7f21ac592e623d04c598fbad3b82b4c5cf5f2c485ff94948a886b1105448033b",
    "ubuntu-x64": "38a3d11991211617c9e5200959c751540b8d0f8982dcbf23ac6b5468fd2ec909",
    "windows-x64": "04089e404bc257e153712c038c6dc4c0e1fe91fd55901a398e5072e3566ee0e8"
  }
}
"""
# cmake/llvm-build-info.json (triton-lang/triton 071933ed)
LLVM_BUILD_INFO_JSON = """{
  "llvm_hash": "4611156032e1ebac68b2b8f6107b1475a7c60800",
  "repository": "triton-lang/llvm-project",
  "build_number": 1
}
"""
# pyproject.toml at the root (triton-lang/triton 002e309c, 3.9.0 dev, nanobind era)
PYPROJECT_NANOBIND = """[build-system]
requires = ["setuptools>=40.8.0", "cmake>=3.20,<4.0", "ninja>=1.11.1", "nanobind==2.10.2"]
build-backend = "setuptools.build_meta"

[tool.mypy]
mypy_path = "$MYPY_CONFIG_FILE_DIR/python"
exclude = ["/build/"]

[tool.yapf]
based_on_style = "pep8"
column_limit = 120
"""
# python/pyproject.toml (3.1-3.3 era, pybind11 as a build requirement)
PYPROJECT_PYBIND = """
[build-system]
requires = ["setuptools>=40.8.0", "wheel", "cmake>=3.18", "ninja>=1.11.1", "pybind11>=2.13.1"]

# We're incrementally switching from autopep8 to ruff.
[tool.autopep8]
aggressive = 1
"""
# python/requirements.txt on main (triton-build-facts 1.4)
REQUIREMENTS_MAIN = """# Build dependencies
setuptools>=40.8.0
wheel
cmake>=3.20,<4.0
ninja>=1.11.1
nanobind==2.10.2
lit
"""
# setup.py fragments: 3.6 (root, TRITON_VERSION), 3.2 (python/, version= in setup()), 3.0 (python/)
SETUP_36 = """def get_triton_version_suffix():
    git_sfx = get_git_version_suffix()
    env_sfx = os.environ.get("TRITON_WHEEL_VERSION_SUFFIX", "")
    if "+" in git_sfx and "+" in env_sfx:
        env_sfx = env_sfx.replace("+", "-")
    return git_sfx + env_sfx


# keep it separate for easy substitution
TRITON_VERSION = "3.6.0" + get_triton_version_suffix()
"""
SETUP_32 = """setup(
    name=os.environ.get("TRITON_WHEEL_NAME", "triton"),
    version="3.2.0" + get_git_commit_hash() + os.environ.get("TRITON_WHEEL_VERSION_SUFFIX", ""),
    author="Philippe Tillet",
)
"""
SETUP_30 = """def get_pybind11_package_info():
    pybind11_version_file = os.path.join(get_base_dir(), "cmake", "pybind11-version.txt")
    name = f"pybind11-{version}"
    url = f"https://github.com/pybind/pybind11/archive/refs/tags/v{version}.tar.gz"
    return Package("pybind11", name, url, "PYBIND11_INCLUDE_DIR", "", "PYBIND11_SYSPATH")

setup(
    name=os.environ.get("TRITON_WHEEL_NAME", "triton"),
    version="3.0.0" + os.environ.get("TRITON_WHEEL_VERSION_SUFFIX", ""),
)
"""
LLVM_HASH_37 = "7f77ca0d1d4a4d7ee2e8a04ef2e6b0c3f6bd8d41\n"  # shape of the 3.7 bump (7f77ca0d...)
BUILD_SCRIPT = '#!/usr/bin/env bash\nLLVM_COMMIT_HASH=${LLVM_COMMIT_HASH:-$(cat "$REPO_ROOT/cmake/llvm-hash.txt")}\n'


def reader(files: dict[str, str]) -> Callable[[str], str | None]:
    return files.get


ERA_30 = {"python/setup.py": SETUP_30, "cmake/llvm-hash.txt": "10dc3a8e916d73291269e5e2b82dd22681489aa1\n"}
ERA_33 = {
    "python/setup.py": SETUP_32,
    "python/pyproject.toml": PYPROJECT_PYBIND,
    "cmake/llvm-hash.txt": "e12cbd8339b89563059c2bb2a312579b652560d0\n",
}
ERA_37 = {
    "setup.py": SETUP_36,
    "pyproject.toml": PYPROJECT_PYBIND,
    "cmake/llvm-hash.txt": LLVM_HASH_37,
    "scripts/build-llvm-project.sh": BUILD_SCRIPT,
}
ERA_39 = {
    "setup.py": SETUP_36.replace("3.6.0", "3.9.0"),
    "pyproject.toml": PYPROJECT_NANOBIND,
    "python/requirements.txt": REQUIREMENTS_MAIN,
    "cmake/llvm-info.json": LLVM_INFO_JSON,
    "cmake/llvm-build-info.json": LLVM_BUILD_INFO_JSON,
    "scripts/build-llvm-project.sh": BUILD_SCRIPT,
}


def test_setup_py_dir_by_era() -> None:
    assert setup_py_dir(reader(ERA_30)) == "python"
    assert setup_py_dir(reader(ERA_33)) == "python"
    assert setup_py_dir(reader(ERA_37)) == "."
    with pytest.raises(MismatchError, match="does not look like Triton"):
        setup_py_dir(reader({"README.md": "# PyTorch"}))


def test_llvm_pin_prefers_llvm_info_json() -> None:
    assert llvm_pin(reader(ERA_37)) == ("cmake/llvm-hash.txt", LLVM_HASH_37.strip())
    both = {**ERA_39, "cmake/llvm-hash.txt": LLVM_HASH_37}  # a commit mid-migration
    assert llvm_pin(reader(both)) == ("cmake/llvm-info.json", "4611156032e1ebac68b2b8f6107b1475a7c60800")


def test_llvm_info_json_is_the_pin_even_when_the_build_info_runs_ahead() -> None:
    """triton-lang/triton PR #11160: the build workflow is pointed at the next LLVM first; llvm-info.json
    moves to it only once the packages exist. The commit Triton builds against is llvm-info.json's."""
    ahead = "b010a18d" + "0" * 32
    files = {
        **ERA_39,
        "cmake/llvm-build-info.json": LLVM_BUILD_INFO_JSON.replace("4611156032e1ebac68b2b8f6107b1475a7c60800", ahead),
    }
    assert llvm_pin(reader(files)) == ("cmake/llvm-info.json", "4611156032e1ebac68b2b8f6107b1475a7c60800")
    layout = detect_layout(reader(files))
    assert layout.llvm_commit == "4611156032e1ebac68b2b8f6107b1475a7c60800"
    assert layout.llvm_build_info is not None and layout.llvm_build_info.commit == ahead
    note = layout.llvm_pin_note
    assert note is not None and ahead in note and "4611156032e1ebac68b2b8f6107b1475a7c60800" in note
    # The fork builds another commit: the pin is fetched from llvm/llvm-project, the fork is the one to try.
    assert layout.llvm_repository == "llvm/llvm-project"
    assert layout.llvm_forks[0] == "triton-lang/llvm-project"
    assert detect_layout(reader(ERA_39)).llvm_pin_note is None  # same commit: nothing to say


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({"cmake/llvm-hash.txt": ""}, "empty"),
        ({"cmake/llvm-hash.txt": LLVM_HASH_37[:39]}, "39 hex digits"),
        ({"cmake/llvm-hash.txt": LLVM_HASH_37.strip() + "-dirty"}, "extra text"),
        ({"cmake/llvm-info.json": '{"llvm_hash": 12}'}, "no string 'llvm_hash'"),
        ({"cmake/llvm-info.json": "{not json"}, "not valid JSON"),
        ({}, "neither cmake/llvm-info.json nor cmake/llvm-hash.txt"),
    ],
)
def test_bad_llvm_pins(files: dict[str, str], says: str) -> None:
    with pytest.raises(MismatchError) as info:
        llvm_pin(reader(files))
    assert says in info.value.message


def test_llvm_repository() -> None:
    assert llvm_repository(reader(ERA_37)) == "llvm/llvm-project"
    assert llvm_repository(reader(ERA_39)) == "triton-lang/llvm-project"
    no_hash = {"cmake/llvm-build-info.json": '{"build_number": 2}', "cmake/llvm-hash.txt": LLVM_HASH_37}
    assert llvm_repository(reader(no_hash)) == "llvm/llvm-project"
    with pytest.raises(MismatchError, match="OWNER/REPO"):
        pin = "4611156032e1ebac68b2b8f6107b1475a7c60800"
        bad = {**ERA_39, "cmake/llvm-build-info.json": f'{{"llvm_hash": "{pin}", "repository": "--upload-pack=x"}}'}
        llvm_repository(reader(bad))


# scripts/build-llvm-project.sh on release/3.5.x after "[release/3.5] use triton-lang/llvm-project@triton-3.5
# (#8081)" (facebookexperimental/triton copy 4d0306f04409f0546070ed701dcb76febf897c0b)
SCRIPT_35_RELEASE = 'LLVM_PROJECT_URL=${LLVM_PROJECT_URL:-"https://github.com/triton-lang/llvm-project"}\n'
# ... and on main (1d2da15d2b1f1dfe8f64ddcc2acfe530ff406ffd)
SCRIPT_MAIN = 'LLVM_PROJECT_URL=${LLVM_PROJECT_URL:-"https://github.com/llvm/llvm-project"}\n'


def test_llvm_sources_read_the_commits_own_scripts() -> None:
    pin = LLVM_HASH_37.strip()
    fork = {**ERA_37, "scripts/build-llvm-project.sh": SCRIPT_35_RELEASE}
    assert llvm_sources(reader(fork), pin) == ("triton-lang/llvm-project", ("llvm/llvm-project",))
    upstream = {**ERA_37, "scripts/build-llvm-project.sh": SCRIPT_MAIN}
    assert llvm_sources(reader(upstream), pin) == ("llvm/llvm-project", ("triton-lang/llvm-project",))
    # llvm-build-info.json naming this very commit outranks the script (release/3.8.x, #10719).
    assert (
        llvm_sources(
            reader({**ERA_39, "scripts/build-llvm-project.sh": SCRIPT_MAIN}), "4611156032e1ebac68b2b8f6107b1475a7c60800"
        )[0]
        == "triton-lang/llvm-project"
    )


# cmake/amd-llvm-info.json (triton-lang/triton 1d9554bb) and amd-llvm-build-info.json (3c3d7cd1)
AMD_LLVM_INFO = '{"llvm_hash": "ce3529423abda3fc4ad0b542daa50af21e539a29", "build_number": 1, "sha256sum": {}}\n'
AMD_LLVM_BUILD_INFO = (
    '{"llvm_hash": "d0c52018c28bbf7f4969cae7d115214ff4fd8629", "repository": "ROCm/llvm-project", "build_number": 1}\n'
)


def test_amd_codegen_llvm() -> None:
    assert amd_llvm(reader(ERA_39)) is None
    amd = amd_llvm(
        reader({"cmake/amd-llvm-info.json": AMD_LLVM_INFO, "cmake/amd-llvm-build-info.json": AMD_LLVM_BUILD_INFO})
    )
    assert amd is not None
    assert (amd.commit, amd.build_number, amd.repository, amd.published) == (
        "ce3529423abda3fc4ad0b542daa50af21e539a29",
        1,
        "ROCm/llvm-project",
        (),
    )
    assert detect_layout(reader({**ERA_39, "cmake/amd-llvm-info.json": AMD_LLVM_INFO})).to_json()["amd_llvm"]


def test_build_requires_and_binding() -> None:
    assert build_requires(reader(ERA_39)) == (
        "setuptools>=40.8.0",
        "cmake>=3.20,<4.0",
        "ninja>=1.11.1",
        "nanobind==2.10.2",
        "wheel",
        "lit",
    )
    assert binding(reader(ERA_39)) == "nanobind"
    assert build_requires(reader(ERA_33))[-1] == "pybind11>=2.13.1"
    assert binding(reader(ERA_33)) == "pybind11"
    assert binding(reader(ERA_37)) == "pybind11"
    # <= 3.1: no build requirement, setup.py downloads pybind11 itself.
    assert build_requires(reader(ERA_30)) == ()
    assert binding(reader(ERA_30)) == "pybind11"
    assert binding(reader({"setup.py": "setup()\n"})) == "unknown"


def test_versions() -> None:
    assert triton_version(reader(ERA_30)) == "3.0.0"
    assert triton_version(reader(ERA_33)) == "3.2.0"
    assert triton_version(reader(ERA_37)) == "3.6.0"
    init_only = {"setup.py": "setup()\n", "python/triton/__init__.py": "__version__ = '3.1.0'\n"}
    assert triton_version(reader(init_only)) == "3.1.0"
    assert triton_version(reader({"setup.py": "setup()\n"})) is None


def test_detect_layout_whole() -> None:
    layout = detect_layout(reader(ERA_39))
    assert layout.setup_py_dir == "."
    assert layout.llvm_pin_file == "cmake/llvm-info.json"
    assert layout.llvm_commit == "4611156032e1ebac68b2b8f6107b1475a7c60800"
    assert layout.llvm_repository == "triton-lang/llvm-project"
    assert layout.binding == "nanobind"
    assert layout.has_build_llvm_script is True
    assert layout.version == "3.9.0"
    old = detect_layout(reader(ERA_30))
    assert (old.setup_py_dir, old.llvm_pin_file, old.has_build_llvm_script) == ("python", "cmake/llvm-hash.txt", False)
    assert has_build_llvm_script(reader(ERA_33)) is False


# scripts/build-llvm-project.sh defaults (triton-lang/triton, 2025-07 and 2026-03 shapes)
SCRIPT_LLD = "LLVM_TARGETS=${LLVM_TARGETS:-Native;NVPTX;AMDGPU}\nLLVM_PROJECTS=${LLVM_PROJECTS:-mlir;llvm;lld}\n"
SCRIPT_QUOTED = 'LLVM_PROJECTS="${LLVM_PROJECTS:-"mlir;llvm;lld;clang"}"\n'
# The top CMakeLists.txt (triton-lang/triton main: a plain minimum; some projects give a range)
CMAKELISTS = "cmake_minimum_required(VERSION 3.20)\nproject(triton CXX C)\n"


def test_llvm_projects_of_the_build_script() -> None:
    assert llvm_projects(reader({"scripts/build-llvm-project.sh": SCRIPT_LLD})) == ("mlir", "llvm", "lld")
    assert llvm_projects(reader({"scripts/build-llvm-project.sh": SCRIPT_QUOTED})) == ("mlir", "llvm", "lld", "clang")
    assert llvm_projects(reader({"scripts/build-llvm-project.sh": BUILD_SCRIPT})) is None  # sets no default
    assert llvm_projects(reader(ERA_33)) is None  # no script before 2025-05


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        (CMAKELISTS, (3, 20)),
        ("CMAKE_MINIMUM_REQUIRED( VERSION 3.18.4 )\n", (3, 18, 4)),
        ("cmake_minimum_required(VERSION 3.18...3.27)\n", (3, 18)),
        ("project(x)\n", None),
    ],
)
def test_cmake_minimum_required(text: str, asked: tuple[int, ...] | None) -> None:
    assert cmake_minimum_required(reader({"CMakeLists.txt": text})) == asked
    assert cmake_minimum_required(reader({})) is None


def test_detect_layout_reads_the_llvm_projects_and_the_cmake_minimum() -> None:
    files = {**ERA_39, "scripts/build-llvm-project.sh": SCRIPT_LLD, "CMakeLists.txt": CMAKELISTS}
    layout = detect_layout(reader(files))
    assert (layout.llvm_projects, layout.cmake_minimum) == (("mlir", "llvm", "lld"), (3, 20))
    assert layout.to_json()["cmake_minimum"] == "3.20"


def test_a_triton_2_commit_names_the_oldest_pytorch_supported() -> None:
    """PyTorch 2.0-2.3 pin Triton 2.x: no cmake/llvm-hash.txt, python/setup.py names the LLVM package."""
    import pytest

    from bootstrap.core.errors import MismatchError
    from bootstrap.git.layout import llvm_pin

    files = {"python/setup.py": 'setup(\n    name="triton",\n    version="2.1.0",\n    author="Philippe Tillet",\n)\n'}
    with pytest.raises(MismatchError) as caught:
        llvm_pin(lambda path: files.get(path))
    assert caught.value.message.startswith("Triton 2.1.0 (the Triton PyTorch 2.0 to 2.3 pin) predates")
    assert "use PyTorch 2.4 or newer (--torch-ref v2.4.0)" in (caught.value.fix or "")
    # Triton 2.3 (PyTorch 2.3's pin) already has cmake/llvm-hash.txt: still refused, by its setup.py.
    files_23 = {
        "cmake/llvm-hash.txt": "a" * 40 + "\n",
        "python/setup.py": 'setup(\n    name="triton",\n    version="2.3.1" + os.environ.get("X", ""),\n)\n',
    }
    with pytest.raises(MismatchError) as newer:
        llvm_pin(lambda path: files_23.get(path))
    assert newer.value.message.startswith("Triton 2.3.1 (the Triton PyTorch 2.0 to 2.3 pin) predates")
    three = {"cmake/llvm-hash.txt": "a" * 40 + "\n", "python/setup.py": 'TRITON_VERSION = "3.0.0"\n'}
    assert llvm_pin(lambda path: three.get(path)) == ("cmake/llvm-hash.txt", "a" * 40)
    with pytest.raises(MismatchError) as other:
        llvm_pin(lambda path: None)
    assert "pins LLVM in one of these files" in (other.value.fix or "")
