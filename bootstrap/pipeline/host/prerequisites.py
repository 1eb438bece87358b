"""What Triton's own CMake needs and finds out only late: checked before the LLVM build starts.

An hour of LLVM build is lost when Triton's configure then stops on something the machine lacked
from the start (/work/research/triton-build-eras.md §6, triton-build-facts.md §9):

- the Python development headers: CMake's `find_package(Python3 ... Development.Module)`;
- zlib: the Python module links `z` (`target_link_libraries(triton PRIVATE z)`, every era);
- the CMake setup.py runs: Triton requires `cmake>=3.20,<4.0`; setup.py runs the first `cmake` on
  PATH, which setup puts in the target environment (installed there from the build requirements);
- `lit`, which setup.py hands to CMake as LLVM_EXTERNAL_LIT when it finds it (Triton's lit tests).

Triton compiles with `-Werror` (appended to CMAKE_CXX_FLAGS by its CMakeLists.txt in every era; the
`-DLLVM_ENABLE_WERROR=ON` setup.py passes is read by none of its CMake files): a compiler newer than the
ones upstream tests with can stop on a new warning; that cannot be checked before,
docs/setup-and-build.md says what works around it.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.pipeline.host.toolchain import Toolchain, version_tuple

STEP = "prerequisites"
CMAKE_TOO_NEW = (4,)
_ZLIB_PROBE = "#include <zlib.h>\nint main() { return zlibVersion() == nullptr; }\n"


def _names(requires: Sequence[str]) -> set[str]:
    return {m.group(1).lower() for m in (re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requires) if m}


def check_python_headers(target: TargetPython) -> None:
    header = target.include / "Python.h"
    if not header.is_file():
        raise ToolMissing(
            f"the Python development headers are missing ({header} does not exist): Triton's CMake needs them"
            f" (find_package(Python3 ... Development.Module)) for {target.executable}",
            fix=f"install them: apt-get install python{'.'.join(target.version.split('.')[:2])}-dev"
            " (or python3-dev), or choose a Python that has its headers with --python",
        )


def check_zlib(runner: Runner, toolchain: Toolchain) -> None:
    """Compile and link a use of zlib with the compiler the builds use: header and library both."""
    with tempfile.TemporaryDirectory(prefix="tritondev-zlib-") as tmp:
        try:
            result = runner.capture(
                [toolchain.cxx.path, "-x", "c++", "-", "-o", str(Path(tmp) / "probe"), "-lz"],
                step=STEP,
                check=False,
                input_text=_ZLIB_PROBE,
                timeout=120,
            )
        except (CommandFailed, ToolMissing):
            return  # the compiler itself is checked elsewhere; this probe only looks for zlib
    if result.returncode != 0:
        why = next(
            (line.strip() for line in (result.stderr or result.stdout).splitlines() if "zlib" in line or "-lz" in line),
            "compiling against zlib failed",
        )
        raise ToolMissing(
            f"zlib's development files are missing: Triton's Python module links -lz ({why})",
            fix="install them: apt-get install zlib1g-dev  (dnf install zlib-devel)",
        )


def cmake_notices(toolchain: Toolchain, requires: Sequence[str], target_bin: Path | None) -> list[str]:
    """A CMake 4 that setup.py would run: upstream pins cmake>=3.20,<4.0 (python/requirements.txt)."""
    if "cmake" in _names(requires) and target_bin is not None:
        return []  # the requirements put a cmake<4 into the target, first on setup.py's PATH
    if version_tuple(toolchain.cmake.version)[:1] >= CMAKE_TOO_NEW:
        return [
            f"cmake {toolchain.cmake.version} ({toolchain.cmake.path}) is 4.0 or newer, and Triton asks for"
            " cmake>=3.20,<4.0: if its configure fails, pip install 'cmake>=3.20,<4' into the target environment"
        ]
    return []


def lit_notices(runner: Runner, requires: Sequence[str], target_bin: Path | None) -> list[str]:
    if "lit" in _names(requires) or (target_bin is not None and (target_bin / "lit").exists()) or runner.which("lit"):
        return []
    return [
        "lit not found: Triton's lit tests (ninja check-triton-lit-tests) need it; pip install lit into the"
        " target environment"
    ]


def check_prerequisites(
    runner: Runner, toolchain: Toolchain, target: TargetPython | None, requires: Sequence[str], target_bin: Path | None
) -> list[str]:
    """Raises ToolMissing (exit 3) for what would stop Triton's build; returns notices for the rest."""
    if target is not None:
        check_python_headers(target)
    check_zlib(runner, toolchain)
    return cmake_notices(toolchain, requires, target_bin) + lit_notices(runner, requires, target_bin)
