"""Triton settings: TRITON_* variables in effect, with notes on the risky ones."""

from __future__ import annotations

from bootstrap.core.redact import redact
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.model import CheckOutcome, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.pipeline.host.jobs import detect, hungriest, memory_allows

# Variables that are fine for one experiment and quietly harmful when left on.
RISKY: dict[str, str] = {
    "TRITON_OVERRIDE_ARCH": "compiles every kernel for another arch than the GPU's (triton#10331: 'actively makes"
    " things worse')",
    "TRITON_ALWAYS_COMPILE": "bypasses the kernel cache: every launch recompiles",
    "TRITON_INTERPRET": "runs kernels in the CPU interpreter, not on the GPU",
    "TRITON_DEBUG": "adds device-side assertions: kernels run slower",
    "TRITON_KERNEL_OVERRIDE": "replaces compiled kernels with files from TRITON_OVERRIDE_DIR",
    "TRITON_MOCK_PTX_VERSION": "makes Triton emit a PTX version it did not check against ptxas",
    "DISABLE_LLVM_OPT": "turns off LLVM optimisation: slow kernels",
    "DISABLE_PTXAS_OPT": "turns off ptxas optimisation: slow kernels",
    "TRITON_ENABLE_ASAN": "builds kernels with the address sanitizer",
    "MLIR_ENABLE_DUMP": "dumps IR for every compile (slow, noisy)",
    "TRITON_F32_DEFAULT": "changes the default precision of fp32 dots",
}

# Build variables users set by hand that fight tritondev's own choices.
BUILD_VARS = (
    "MAX_JOBS",
    "TRITON_PARALLEL_LINK_JOBS",
    "TRITON_BUILD_WITH_CLANG_LLD",
    "TRITON_BUILD_WITH_CCACHE",
    "LLVM_SYSPATH",
    "TRITON_OFFLINE_BUILD",
    "CC",
    "CXX",
)


def _is_on(value: str) -> bool:
    return value.strip().lower() not in ("", "0", "false", "off", "no")


@check("settings.triton-env", "TRITON_* variables set")
def triton_env(facts: Facts) -> CheckOutcome:
    names = sorted(k for k in facts.environ if k.startswith(("TRITON_", "MLIR_", "LLVM_IR_")) or k in RISKY)
    if not names:
        return ok("no TRITON_* variables set")
    shown = [f"{k}={redact(facts.environ[k])}" for k in names]
    risky = [k for k in names if k in RISKY and _is_on(facts.environ[k])]
    if risky:
        notes = [f"{k}: {RISKY[k]}" for k in risky]
        return warn(
            f"risky: {', '.join(risky)} ({RISKY[risky[0]]})",
            "unset " + " ".join(risky) + " unless you mean it for this shell",
            *notes,
            *shown,
        )
    return ok(", ".join(shown))


@check("settings.build-env", "build variables set by hand")
def build_env(facts: Facts) -> CheckOutcome:
    names = [k for k in BUILD_VARS if facts.environ.get(k)]
    if not names:
        return ok("none of MAX_JOBS, LLVM_SYSPATH, CC, CXX ... set: tritondev chooses them")
    shown = [f"{k}={redact(facts.environ[k])}" for k in names]
    if "MAX_JOBS" in names:
        try:
            jobs = int(facts.environ["MAX_JOBS"])
        except ValueError:
            return warn(f"MAX_JOBS={facts.environ['MAX_JOBS']} is not a number", "unset MAX_JOBS", *shown)

        settings = facts.ctx.settings
        safe = memory_allows(detect(), hungriest(settings.build_type, settings.llvm_build_type))
        if jobs > safe:
            return warn(
                f"MAX_JOBS={jobs} exceeds what memory allows (~{safe}): the build may be OOM-killed",
                f"export MAX_JOBS={safe}  (or unset it: tritondev sizes jobs itself)",
                *shown,
            )
    return ok(", ".join(shown))
