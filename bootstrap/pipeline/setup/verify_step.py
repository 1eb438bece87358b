"""setup's verify step: the installed Triton is the one just built (provenance), finds its tools,
and runs a kernel (the last two unless --skip-verify; the kernel neither in an ASAN build, whose GPU
programs cannot run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bootstrap.core.errors import CheckFailed
from bootstrap.pipeline.host.buildtree import triton_cmake_dirs
from bootstrap.pipeline.host.sanitizer import preload_env
from bootstrap.pipeline.setup.provenance import Expected, verify_provenance
from bootstrap.pipeline.setup.report import KernelCheck, KernelsSkipped, Verification

if TYPE_CHECKING:
    from bootstrap.kernels.verify import Check
    from bootstrap.pipeline.setup.plan import PlannedStep
    from bootstrap.pipeline.setup.step_run import StepRun


def run_verify(run: StepRun, step: PlannedStep) -> str | None:
    if run.dry_run:
        return None
    facts, plan, settings = run.facts, run.plan, run.settings
    expected = Expected(
        facts.triton.path,
        facts.setup_dir,
        plan.llvm.build,
        facts.llvm.expected_revision(facts.pins.llvm_commit),
        facts.pins.layout.version,
    )
    findings = verify_provenance(run.runner, plan.python, expected, run.workspace.state)
    run.report.verify = verification = Verification(findings)
    if not findings.ok:
        raise CheckFailed(
            f"the installed triton is not the one just built: {'; '.join(findings.problems)}",
            fix="run `tritondev setup` again; if it persists, `tritondev doctor` says more",
        )
    asan = settings.sanitize == "address"  # setup.py: "asan doesn't work with binaries that use the GPU"
    # --skip-verify: provenance only (a bisect step's command judges the build; the tools serve the kernel check).
    tools = _runtime_tools(run) if not settings.skip_verify else None
    kernel: KernelCheck | None = None
    if asan and not settings.skip_verify:
        kernel = KernelsSkipped("GPU programs do not run under ASAN (--sanitize address)")
    elif not settings.skip_verify:
        kernel = run.check_kernels(tools)
    if kernel is not None:
        verification.kernels = kernel
        if isinstance(kernel, KernelsSkipped):
            run.report.notices.append(f"kernel check skipped: {kernel.why}")
        if not kernel.ok:
            raise CheckFailed(
                "the kernel check failed on the installed triton", fix="see `tritondev verify` for details"
            )
    return None


def _runtime_tools(run: StepRun) -> Check | None:
    """For NVIDIA: the installed Triton finds ptxas by itself, as a fresh shell has it (else exit 1)."""
    if run.settings.backend != "nvidia":
        return None

    preload: dict[str, str] = {}
    if run.settings.sanitize == "address":
        dirs = triton_cmake_dirs(run.facts.setup_dir)
        preload = preload_env(run.runner, dirs[0]) if dirs else {}
    from bootstrap.kernels.verify import runtime_tools  # late: see bootstrap.pipeline.setup.report

    check = runtime_tools(run.runner, run.plan.python, preload)
    if run.report.verify is not None:
        run.report.verify.tools = check  # in the report even when it fails
    if not check.ok:
        raise CheckFailed(
            check.summary,
            fix="see docs/setup-and-build.md (Offline builds); `tritondev verify` shows what Triton finds",
        )
    return check
