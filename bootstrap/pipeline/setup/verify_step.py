"""setup's verify step: the installed Triton is the one just built (provenance), finds its tools,
and runs a kernel (the last two unless --skip-verify; the kernel neither in an ASAN build, whose GPU
programs cannot run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bootstrap.core.errors import CheckFailed, ToolMissing
from bootstrap.kernels import verify as kernel_verify
from bootstrap.kernels.verify import runtime_tools
from bootstrap.pipeline.host.buildtree import triton_cmake_dirs
from bootstrap.pipeline.host.sanitizer import preload_env
from bootstrap.pipeline.setup.provenance import Expected, verify_provenance
from bootstrap.pipeline.setup.report import Verification

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.kernels.verify import Check
    from bootstrap.pipeline.setup.plan import PlannedStep
    from bootstrap.pipeline.setup.step_run import StepRun


def run_verify(run: StepRun, step: PlannedStep) -> str | None:
    if run.dry_run:
        return None
    facts, plan = run.facts, run.plan
    expected = Expected(facts.triton.path, facts.setup_dir, plan.llvm.build,
                        facts.llvm_source.expected_revision(facts.pins.llvm_commit), facts.pins.layout.version)
    findings = verify_provenance(run.runner, plan.python, expected, run.ctx.workspace.state)
    run.report.verify = verification = Verification(findings)
    if not findings["ok"]:
        problems = "; ".join(str(p) for p in findings["problems"])  # type: ignore[attr-defined]
        raise CheckFailed(f"the installed triton is not the one just built: {problems}",
                          fix="run `tritondev setup` again; if it persists, `tritondev doctor` says more")
    asan = run.ctx.settings.sanitize == "address"  # setup.py: "asan doesn't work with binaries that use the GPU"
    # --skip-verify: provenance only (a bisect step's command judges the build; the tools serve the kernel check).
    tools = _runtime_tools(run) if not run.ctx.settings.skip_verify else None
    kernel = _kernel_check(run.ctx, tools) if not (run.ctx.settings.skip_verify or asan) else None
    if asan and not run.ctx.settings.skip_verify:
        kernel = {"ok": True, "skipped": "GPU programs do not run under ASAN (--sanitize address)"}
    if kernel is not None:
        verification.kernels = kernel
        if kernel.get("skipped"):
            run.report.notices.append(f"kernel check skipped: {kernel['skipped']}")
        if not kernel.get("ok"):
            raise CheckFailed("the kernel check failed on the installed triton",
                              fix="see `tritondev verify` for details")
    return None


def _runtime_tools(run: StepRun) -> Check | None:
    """For NVIDIA: the installed Triton finds ptxas by itself, as a fresh shell has it (else exit 1)."""
    if run.ctx.settings.backend != "nvidia":
        return None

    preload: dict[str, str] = {}
    if run.ctx.settings.sanitize == "address":
        dirs = triton_cmake_dirs(run.facts.setup_dir)
        preload = preload_env(run.runner, dirs[0]) if dirs else {}
    check = runtime_tools(run.ctx, run.plan.python, preload)
    if run.report.verify is not None:
        run.report.verify.tools = check  # in the report even when it fails
    if not check.ok:
        raise CheckFailed(check.summary, fix="see docs/setup-and-build.md (Offline builds); `tritondev verify` shows"
                          " what Triton finds")
    return check


def _kernel_check(ctx: AppContext, tools: Check | None) -> dict[str, object] | None:
    """The verify command's kernel check."""

    try:
        result = kernel_verify.run_verify(ctx, [], tools=tools)
    except ToolMissing as exc:
        # No torch or numpy in the target: the kernel check cannot run there; provenance stands.
        return {"ok": True, "skipped": exc.message}
    data = result.to_json()
    return data if isinstance(data, dict) else {"ok": bool(result.ok)}
