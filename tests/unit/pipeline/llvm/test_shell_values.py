"""The values shell/triton-dev.sh runs, as setup renders them for each `--llvm`: with a prebuilt
package or a given path the workspace has no LLVM of its own, so the LLVM commands are empty and the
file says where LLVM comes from (the functions then refuse, see
tests/integration/build/test_shell_functions.py)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from bootstrap.pipeline.llvm.package import Package
from bootstrap.pipeline.llvm.source import LlvmUse, PrebuiltPackage, SourceBuild, TreeReport, UserTree
from bootstrap.pipeline.recipe.files import render_shell_values
from bootstrap.pipeline.recipe.presets import make_presets
from tests.unit.pipeline.test_units import _inputs


def llvm_use(kind: str, path: Path) -> LlvmUse:
    """Where LLVM comes from, as setup's facts hold it: built here, Triton's package, or a tree at `path`."""
    if kind == "prebuilt":
        return PrebuiltPackage(
            Package(
                "llvm-2f82c226-ubuntu-x64", "https://llvm.example/p.tar.gz", None, "ubuntu-x64", "2f82c226" * 5, None
            )
        )
    return UserTree(TreeReport(path, (), None, None)) if kind == "path" else SourceBuild()


def elsewhere(kind: str, build: Path) -> str:
    return llvm_use(kind, build).elsewhere(build)


def values_of(text: str) -> dict[str, list[str]]:
    """NAME -> words of each NAME=... line, read as bash would split them."""
    found = {}
    for line in text.splitlines():
        if line.startswith("TRITON_DEV_"):
            name, _, value = line.partition("=")
            found[name] = shlex.split(value[1:-1] if value.startswith("(") else value)
    return found


def test_a_source_build_gives_the_functions_its_llvm_commands() -> None:
    inputs = _inputs()
    presets = make_presets(inputs)
    values = values_of(render_shell_values(presets, inputs.paths, elsewhere("source", inputs.paths.llvm_build)))
    assert values["TRITON_DEV_LLVM_ELSEWHERE"] == [""]  # empty: the functions run the commands
    assert values["TRITON_DEV_LLVM_CONFIGURE"] == list(presets.llvm_configure.argv)
    assert values["TRITON_DEV_LLVM_BUILD"] == list(presets.llvm_build.argv)


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("prebuilt", "LLVM comes from Triton's prebuilt package unpacked in /ws/build/llvm/k (--llvm prebuilt)"),
        ("path", "LLVM comes from the given path /ws/build/llvm/k (--llvm /ws/build/llvm/k)"),
    ],
)
def test_a_prebuilt_or_given_llvm_leaves_nothing_to_configure_and_says_why(kind: str, words: str) -> None:
    inputs = _inputs()
    presets = make_presets(inputs)
    values = values_of(render_shell_values(presets, inputs.paths, elsewhere(kind, inputs.paths.llvm_build)))
    assert values["TRITON_DEV_LLVM_ELSEWHERE"] == [words]
    assert values["TRITON_DEV_LLVM_CONFIGURE"] == [] and values["TRITON_DEV_LLVM_BUILD"] == []
    # Triton's own commands stay: they build against that LLVM.
    assert values["TRITON_DEV_PIP_INSTALL"] == list(presets.pip_install.argv)
    assert values["TRITON_DEV_TRITON_CMAKE"] == list(presets.triton_cmake.argv)


def test_a_path_with_spaces_and_quotes_stays_one_word() -> None:
    build = Path("/data/my llvm 'x'/build")
    assert values_of(f"TRITON_DEV_LLVM_ELSEWHERE={shlex.quote(elsewhere('path', build))}\n")[
        "TRITON_DEV_LLVM_ELSEWHERE"
    ] == [elsewhere("path", build)]
