"""The workspace's finished Triton build: where its tools are, the environment they run in, and whether
it still matches its checkout's LLVM pin.

A clone rebased onto an LLVM bump (or a pin file edited) pins another LLVM than the one its build was
configured against: ninja would go on compiling against the old MLIR ("install unchanged"), and a C++
error would send the user to debug code that is fine. `build` stops there (exit 5), `test` and the
IR tools say it first, doctor's workspace.llvm-build says it: each with both commits and what to run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core import ui
from bootstrap.core.errors import TritondevError, UsageError
from bootstrap.git.adopt import working_tree_reader
from bootstrap.git.layout import llvm_pin
from bootstrap.pipeline.built.state import SetupState, read_state
from bootstrap.pipeline.host.buildtree import read_vcs_revision, triton_cmake_dirs
from bootstrap.pipeline.host.sanitizer import ASAN_OPTIONS, sanitized_build


@dataclass(frozen=True)
class TritonBuild:
    """setup.py's build folder of the workspace's Triton, and the checkout it was built from."""

    build_dir: Path
    triton_src: Path

    @property
    def triton_opt(self) -> Path:
        return self.build_dir / "bin" / "triton-opt"

    @property
    def sanitized(self) -> bool:
        return sanitized_build(self.build_dir)


def find_build(workspace_root: Path, state_dir: Path) -> TritonBuild:
    """The Triton build of the workspace's last setup; a UsageError (exit 2) saying what to run when there is none."""
    state = read_state(state_dir)
    if state is None:
        raise UsageError(
            f"no Triton build in workspace {workspace_root} (no finished `tritondev setup`)",
            fix="run `tritondev setup` first: it builds Triton, and triton-opt with it",
        )
    dirs = triton_cmake_dirs(state.setup_dir)
    if not dirs:
        raise UsageError(
            f"no Triton build folder (build/cmake.*/build.ninja) under {state.setup_dir}",
            fix="run `tritondev setup` (it builds Triton once; `tritondev build` then rebuilds incrementally)",
        )
    moved = llvm_pin_moved(state)
    if moved is not None:
        ui.warn(f"{moved.message()}; fix: {moved.fix}")
    return TritonBuild(dirs[0], state.triton_src)


@dataclass(frozen=True)
class PinMoved:
    """The checkout's LLVM pin is no longer the LLVM its build was configured against."""

    checkout: Path
    pin_file: str
    pin: str  # what the checkout pins now
    built: str  # the LLVM the build is against (the pin when setup built it)
    llvm_build: Path

    def message(self) -> str:
        return (
            f"{self.checkout} now pins LLVM {self.pin[:12]} ({self.pin_file}), but the workspace's Triton build"
            f" is against LLVM {self.built[:12]} ({self.llvm_build}): building it now would compile against the "
            "old MLIR"
        )

    @property
    def fix(self) -> str:
        return f"run `tritondev setup`: it gets LLVM {self.pin[:12]} and rebuilds Triton against it"


def llvm_pin_moved(state: SetupState) -> PinMoved | None:
    """How the checkout's pin (its working tree, local edits included) differs from the LLVM setup built
    against; None when it does not, or when either side cannot be read (setup then says why)."""
    try:
        pin_file, pin = llvm_pin(working_tree_reader(state.triton_src))
    except TritondevError:
        return None
    # The pin setup built for; an older state did not record it: the build's own revision then.
    built = state.llvm_pin or read_vcs_revision(state.llvm_build)
    if built is None or built.startswith(pin) or pin.startswith(built):
        return None
    return PinMoved(state.triton_src, pin_file, pin, built, state.llvm_build)


def runtime_env(build: TritonBuild, environ: Mapping[str, str]) -> dict[str, str]:
    """Variables triton-opt (and lit) of this build need: ASAN_OPTIONS for an ASAN build, unless set already."""
    if build.sanitized and "ASAN_OPTIONS" not in environ:
        return {"ASAN_OPTIONS": ASAN_OPTIONS}
    return {}
