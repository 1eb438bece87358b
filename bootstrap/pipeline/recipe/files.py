"""The files the recipe writes for the user: CMakeUserPresets.json and the shell values of env.sh."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from pathlib import Path

from bootstrap.pipeline.recipe.inputs import Paths
from bootstrap.pipeline.recipe.presets import PRESET_NAME, Presets

# The description of the presets setup writes: how a CMakeUserPresets.json is known to be tritondev's.
PRESETS_MARK = "Written by tritondev setup; re-run it to refresh."


def render_cmake_user_presets(cache: Sequence[tuple[str, str]], binary_dir: Path, jobs: int, *, display: str) -> str:
    """CMakeUserPresets.json: `cmake --preset tritondev` and `cmake --build --preset tritondev`."""
    data = {
        "version": 3,
        "cmakeMinimumRequired": {"major": 3, "minor": 20, "patch": 0},
        "configurePresets": [
            {
                "name": PRESET_NAME,
                "displayName": display,
                "description": PRESETS_MARK,
                "generator": "Ninja",
                "binaryDir": str(binary_dir),
                "cacheVariables": dict(cache),
            }
        ],
        "buildPresets": [{"name": PRESET_NAME, "configurePreset": PRESET_NAME, "jobs": jobs}],
    }
    return json.dumps(data, indent=2) + "\n"


def _bash_array(name: str, items: Sequence[str]) -> str:
    return f"{name}=(" + " ".join(shlex.quote(i) for i in items) + ")\n"


def render_shell_values(presets: Presets, paths: Paths, elsewhere: str = "") -> str:
    """The values shell/triton-dev.sh runs: bash arrays, one per command, written into the workspace.

    With --llvm prebuilt or PATH there is no LLVM checkout or build folder of the workspace: the LLVM
    commands are left empty and TRITON_DEV_LLVM_ELSEWHERE says why (`elsewhere`, the LLVM source's own
    line: bootstrap.pipeline.llvm.source), so that the functions refuse rather than run cmake on folders
    that are not there."""
    env = [f"{k}={v}" for k, v in presets.triton_env]
    unset = [f"-u{name}" for name in presets.triton_unset]
    lines = [
        "# Written by `tritondev setup` from its presets; shell/triton-dev.sh reads it. Do not edit:\n",
        "# re-run `tritondev setup` (or `tritondev setup --dry-run`) to change it.\n",
        "# shellcheck disable=SC2034\n",
        f"TRITON_DEV_TRITON_SRC={shlex.quote(str(paths.triton_src))}\n",
        f"TRITON_DEV_LLVM_ELSEWHERE={shlex.quote(elsewhere)}\n",
        _bash_array("TRITON_DEV_LLVM_CONFIGURE", () if elsewhere else presets.llvm_configure.argv),
        _bash_array("TRITON_DEV_LLVM_BUILD", () if elsewhere else presets.llvm_build.argv),
        _bash_array("TRITON_DEV_TRITON_ENV", [*unset, *env]),
        _bash_array("TRITON_DEV_PIP_REQUIREMENTS", presets.pip_requirements.argv if presets.pip_requirements else []),
        _bash_array("TRITON_DEV_PIP_INSTALL", presets.pip_install.argv),
        _bash_array("TRITON_DEV_TRITON_CMAKE", presets.triton_cmake.argv),
    ]
    return "".join(lines)
