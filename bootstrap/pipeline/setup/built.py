"""The workspace's finished Triton build: where its tools are and the environment they run in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import UsageError
from bootstrap.pipeline.host.buildtree import triton_cmake_dirs
from bootstrap.pipeline.host.sanitizer import ASAN_OPTIONS, sanitized_build
from bootstrap.pipeline.setup.state import read_state


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
    return TritonBuild(dirs[0], state.triton_src)


def runtime_env(build: TritonBuild, environ: Mapping[str, str]) -> dict[str, str]:
    """Variables triton-opt (and lit) of this build need: ASAN_OPTIONS for an ASAN build, unless set already."""
    if build.sanitized and "ASAN_OPTIONS" not in environ:
        return {"ASAN_OPTIONS": ASAN_OPTIONS}
    return {}
