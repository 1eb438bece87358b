"""Run and cross-compile Triton kernels in the target environment: `tritondev verify` and `tritondev compile`.

tritondev never imports triton itself; everything Triton does happens in a fresh interpreter of the
target environment, running the stdlib-only scripts of bootstrap/core/target/scripts/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bootstrap.core.target.inside import InstallTarget

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.target.inside import InstallTarget


def install_target(ctx: AppContext, triton_version: str | None = None) -> InstallTarget:
    """The target environment as a fix line that installs into it must know it
    (bootstrap.core.target.inside.install_fix)."""

    target = ctx.target_python()
    return InstallTarget(target.executable, target.is_venv, triton_version, ctx.workspace.venv)
