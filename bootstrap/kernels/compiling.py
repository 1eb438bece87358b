"""`tritondev compile`: a kernel for every target, again with a toolkit ptxas where Triton's own lacks the arch."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.kernels.compile import plan_compile, run_plan
from bootstrap.kernels.compile_report import CompileReport
from bootstrap.kernels.ptxas_retry import retry_unknown_arch
from bootstrap.kernels.targets import Target

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


def compile_kernel(
    ctx: AppContext,
    source: Path,
    kernel: str,
    signature: str | None,
    constexprs: dict[str, str],
    targets: list[Target],
    out_dir: Path,
    options: dict[str, int] | None = None,
    config: int | None = None,
) -> CompileReport:
    """Compile `source::kernel` for every target into out_dir/<backend>-<arch>/ (stages, SASS, metadata).

    Raises UsageError for bad inputs (nothing written), ToolMissing when triton is not in the target
    environment; per-target compiler failures are in the report (`.ok` False, `.failed`).
    config: the index of an @triton.autotune kernel's config whose values and options to use.
    """
    plan = plan_compile(source, kernel, signature, constexprs, targets, out_dir, options, config)
    # Triton's temporary files, for the compile and its retries: a failed ptxas run's PTX, which Triton
    # leaves there, is kept beside the target's folder (ptxas_retry), then goes with the folder.
    with (
        ui.working(f"compile: {kernel} for {', '.join(t.label for t in targets)}", json=ctx.json),
        tempfile.TemporaryDirectory(prefix="tritondev-compile-tmp-") as temporary,
    ):
        report = run_plan(ctx, plan, temporary=Path(temporary))
        retry_unknown_arch(ctx, plan, report, Path(temporary))
    return report
