"""The one source of truth for build settings: pure functions from facts to commands.

Inputs: the Triton layout at the pinned commit (where setup.py is, its build requirements, the
LLVM flags its own scripts/build-llvm-project.sh used then), the settings (build types, jobs,
ccache, lld), the detected toolchain and the machine's resources. Outputs:

- the LLVM/MLIR cmake configure and ninja build commands,
- the environment for Triton's setup.py and the pip commands that build and install it,
- the cmake arguments of a hand-configured Triton build directory (`triton-cmake`).

Three renderers share these values, so they cannot disagree: `setup` runs the commands (and
`setup --dry-run` prints them), `render_cmake_user_presets` writes CMakeUserPresets.json into each
checkout (for `cmake --preset tritondev` by hand), and `render_shell_values` writes the values that
the shell functions in shell/triton-dev.sh run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.pipeline.recipe.inputs import Command, PresetInputs
from bootstrap.pipeline.recipe.llvm import llvm_build_key, llvm_cache_variables
from bootstrap.pipeline.recipe.triton import triton_cache_variables, triton_environment

PRESET_NAME = "tritondev"


# ------------------------------------------------------------------------------------------------
# Era: which LLVM projects and targets Triton's own recipe used at the pinned commit


# ------------------------------------------------------------------------------------------------
# Inputs and outputs


@dataclass(frozen=True)
class Presets:
    llvm_key: str
    llvm_cache: tuple[tuple[str, str], ...]  # -D variables of the LLVM configure
    llvm_configure: Command
    llvm_build: Command
    triton_env: tuple[tuple[str, str], ...]
    triton_unset: tuple[str, ...]
    pip_requirements: Command | None
    pip_install: Command
    triton_cache: tuple[tuple[str, str], ...]  # -D variables of a hand-configured Triton build
    triton_cmake: Command
    triton_cmake_build_dir: Path
    notes: tuple[str, ...] = field(default=())

    def commands(self) -> list[Command]:
        """The build commands `setup` runs, in order (without sources, purge and verify)."""
        out = [self.llvm_configure, self.llvm_build]
        if self.pip_requirements is not None:
            out.append(self.pip_requirements)
        out.append(self.pip_install)
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "llvm_key": self.llvm_key,
            "llvm_cmake": dict(self.llvm_cache),
            "triton_env": dict(self.triton_env),
            "triton_cmake": dict(self.triton_cache),
            "commands": [c.to_json() for c in self.commands()],
        }


def _defines(cache: Sequence[tuple[str, str]]) -> list[str]:
    return [f"-D{name}={value}" for name, value in cache]


def setup_py_path(inputs: PresetInputs) -> Path:
    return inputs.paths.triton_src if inputs.setup_py_dir == "." else inputs.paths.triton_src / inputs.setup_py_dir


def make_presets(inputs: PresetInputs) -> Presets:
    p = inputs.paths
    tc = inputs.toolchain
    llvm_cache = llvm_cache_variables(inputs)
    configure = Command(
        "llvm-configure",
        ("cmake", "-G", "Ninja", "-S", str(p.llvm_cmake_source), "-B", str(p.llvm_build), *_defines(llvm_cache)),
    )
    build = Command("llvm-build", ("ninja", "-C", str(p.llvm_build), "-j", str(inputs.jobs.compile)))
    env, unset = triton_environment(inputs)
    triton_dir = p.triton_src / "build" / f"{PRESET_NAME}-{inputs.build_type}"
    pip = (str(p.python), "-m", "pip", "install", "--disable-pip-version-check")
    requirements = Command("triton-requirements", (*pip, *inputs.build_requires)) if inputs.build_requires else None
    # --no-build-isolation: the build uses the cmake/ninja installed above, the same path every time, so
    # ninja rebuilds only what changed (a fresh isolated env would change it and rebuild everything).
    install = Command(
        "triton-install",
        (*pip, "--no-build-isolation", "-v", "-e", str(setup_py_path(inputs))),
        cwd=str(p.triton_src),
        env=tuple(env),
        unset=tuple(unset),
    )
    triton_cache = triton_cache_variables(inputs, env, triton_dir)
    triton_cmake = Command(
        "triton-cmake",
        ("cmake", "-G", "Ninja", "-S", str(p.triton_src), "-B", str(triton_dir), *_defines(triton_cache)),
    )
    key = llvm_build_key(inputs.llvm_commit, inputs.llvm_build_type, inputs.era, tc)
    return Presets(
        llvm_key=key,
        llvm_cache=tuple(llvm_cache),
        llvm_configure=configure,
        llvm_build=build,
        triton_env=tuple(env),
        triton_unset=tuple(unset),
        pip_requirements=requirements,
        pip_install=install,
        triton_cache=tuple(triton_cache),
        triton_cmake=triton_cmake,
        triton_cmake_build_dir=triton_dir,
    )


# ------------------------------------------------------------------------------------------------
# Renderers
