"""shell/triton-dev.sh in a real bash, with the values setup writes for `--llvm prebuilt` / `--llvm PATH`:
triton-configure-mlir and triton-build-mlir say where LLVM comes from and exit non-zero instead of
running cmake or ninja on folders the workspace does not have; the Triton functions still work."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bootstrap.pipeline.recipe.files import render_shell_values
from bootstrap.pipeline.recipe.presets import make_presets
from tests.integration.build.harness import SHELL_FUNCTIONS
from tests.unit.pipeline.llvm.test_shell_values import elsewhere
from tests.unit.pipeline.test_units import _inputs


def call(workspace: Path, function: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRITONDEV_WORKSPACE": str(workspace), "TRITON_DEV_PRINT": "1"}
    return subprocess.run(
        ["bash", "-c", f'source "$1" && {function}', "bash", str(SHELL_FUNCTIONS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("kind", ["prebuilt", "path", "source"])
def test_llvm_functions_refuse_when_the_workspace_has_no_llvm_of_its_own(kind: str, tmp_path: Path) -> None:
    inputs = _inputs()
    presets = make_presets(inputs)
    (tmp_path / "state").mkdir()
    values = render_shell_values(presets, inputs.paths, elsewhere(kind, inputs.paths.llvm_build))
    (tmp_path / "state" / "triton-dev.sh").write_text(values)
    for function, command in (("triton-configure-mlir", "cmake"), ("triton-build-mlir", "ninja")):
        proc = call(tmp_path, function)
        if kind == "source":
            assert proc.returncode == 0 and proc.stdout.startswith(command), proc.stderr
            continue
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2 and proc.stdout == "", proc
        assert len(lines) == 2 and f"--llvm {'prebuilt' if kind == 'prebuilt' else '/ws/build/llvm/k'}" in lines[0]
        assert lines[1] == "fix: tritondev setup --llvm source (builds the pinned LLVM in the workspace)"
    assert call(tmp_path, "triton-cmake").stdout.startswith("cmake -G Ninja -S /ws/src/triton")
