"""ccache's base_dir for LLVM's build steps: a new LLVM build folder still hits what another one compiled.

tritondev keeps each LLVM build in a folder of its own (`build/llvm/<pin>-<flags>`), so that a bisect
across an LLVM bump, or a setup back at the older pin, finds the other build as it was. Compile
commands name their folder (`-I<folder>/include`, and the source by its absolute path), and ccache keys
on the command: in a new pin's folder every file would miss, the ones the bump did not change too.
With base_dir = the workspace, ccache rewrites absolute paths below it relative to the current folder,
and every LLVM build folder sits at the same depth (`build/llvm/<key>/`), so a file the bump left alone
is a hit.

hash_dir stays as it is: with debug information (a Debug LLVM) the folder is still hashed, so the debug
information names the folder that built it; only builds without it share across folders. Only LLVM's
steps get it: Triton has one build folder, and its compile errors keep the absolute path of the file a
developer edits. A CCACHE_BASEDIR the user set is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

LLVM_BUILD_STEPS = ("llvm-build",)  # the step whose compiles go through ccache


def llvm_base_dir_env(step: str, workspace: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """CCACHE_BASEDIR for a command of `step`: the workspace for LLVM's build, else nothing."""
    if step not in LLVM_BUILD_STEPS or "CCACHE_BASEDIR" in environ:
        return {}
    return {"CCACHE_BASEDIR": str(workspace)}
