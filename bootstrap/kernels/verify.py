"""`tritondev verify`: does the Triton in the target environment really work?

In a fresh interpreter of the target environment (never tritondev's own): where triton comes from
and which backend it would use; then real kernels (vector add, softmax, matmul) checked against
torch, launched on the GPU when there is one and run under TRITON_INTERPRET=1 otherwise; on the GPU
the vector add's bandwidth beside a torch copy's; and an ahead-of-time compile for --target
(without a GPU: the common NVIDIA and AMD targets; with an NVIDIA GPU: its own arch).

The runtime, not only the build: Triton's own lookup must find ptxas (and for NVIDIA the
ahead-of-time compiles use it) as a fresh shell has it, without the tool-path variables a build or
`tritondev env` may set (FRESH_SHELL_UNSET). Reading changes nothing: every command runs with a
private Triton cache (TRITON_CACHE_DIR in a temporary folder, removed afterwards) unless the user's
own cache is asked for.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bootstrap.core import ui
from bootstrap.core.errors import CheckFailed, CommandFailed, ExternalError, UsageError
from bootstrap.core.io.json_fields import BadField, Fields
from bootstrap.core.target import inside
from bootstrap.env.triton_variables import SKIP_VARIABLES
from bootstrap.kernels import install_target
from bootstrap.kernels.cache.locate import cache_dir
from bootstrap.kernels.compile import STAGES, plan_compile, run_plan
from bootstrap.kernels.targets import DEFAULT_TARGETS, Target, parse_targets
from bootstrap.kernels.verify_facts import Bandwidth, ProbedEnvironment, TritonFacts, probed_environment
from bootstrap.kernels.verify_facts import bandwidth as read_bandwidth

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.process.runner import Runner

# verify's ahead-of-time compile: the matmul, because it exercises each target's MMA lowering.
MATMUL_KERNEL = "matmul_kernel"
MATMUL_SIGNATURE = (
    "a_ptr=*fp16:16,b_ptr=*fp16:16,c_ptr=*fp16:16,M=i32,N=i32,K=i32,"
    "stride_am=i32,stride_ak=i32,stride_bk=i32,stride_bn=i32,stride_cm=i32,stride_cn=i32"
)
MATMUL_CONSTEXPRS = {"BLOCK_M": "64", "BLOCK_N": "64", "BLOCK_K": "32"}
KERNEL_TIMEOUT_S = 900.0
# What a build or `tritondev env` may set and a fresh shell does not have.
FRESH_SHELL_UNSET = (
    "LLVM_SYSPATH",
    "LLVM_INCLUDE_DIRS",
    "LLVM_LIBRARY_DIR",
    "JSON_SYSPATH",
    "TRITON_OFFLINE_BUILD",
    *SKIP_VARIABLES,
)


@dataclass
class Check:
    name: str
    ok: bool
    summary: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "summary": self.summary, **self.data}

    @property
    def tail(self) -> tuple[str, ...]:
        """The last lines of what failed (a compiler's or the kernel run's output), when it kept any."""
        lines = self.data.get("tail")
        return tuple(str(line) if line else "" for line in lines) if isinstance(lines, list) else ()


VerifyMode = Literal["gpu", "interpreter"]


@dataclass
class VerifyReport:
    python: str
    environment: ProbedEnvironment
    mode: VerifyMode
    checks: list[Check] = field(default_factory=list)
    bandwidth: Bandwidth | None = None
    targets: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def triton(self) -> TritonFacts:
        return self.environment.triton

    def to_json(self) -> dict[str, object]:
        torch = self.environment.torch
        return {
            "ok": self.ok,
            "python": self.python,
            "mode": self.mode,
            "triton": self.triton.to_json(),
            "torch": torch.to_json() if torch is not None else None,
            "numpy": self.environment.numpy_json(),
            "checks": [c.to_json() for c in self.checks],
            "bandwidth": self.bandwidth.to_json() if self.bandwidth is not None else None,
            "targets": self.targets,
        }


def probe_environment(ctx: AppContext, python: Path) -> ProbedEnvironment:
    """Provenance and what is installed; ToolMissing (exit 3) when triton is missing."""
    result = ctx.runner.capture(
        [python, inside.script("tritondev_probe.py")], step="verify-probe", check=False, timeout=300
    )
    found = inside.events(result.stdout)
    for event in found:
        if event.get("event") == "error":
            if event.get("kind") == "missing":
                raise inside.missing_module_error(install_target(ctx), event)
            raise CheckFailed(
                str(event.get("message")),
                fix=f"reinstall Triton in {python} (tritondev purge, then tritondev setup), or see tritondev doctor",
                details="\n".join(event.get("tail") or []) or None,
            )
        if event.get("event") == "env":
            try:
                return probed_environment(Fields(event, "tritondev_probe.py"))
            except BadField as exc:
                raise CheckFailed(
                    f"the probe did not answer as agreed: {exc}",
                    fix="reinstall Triton in the target environment, or see tritondev doctor",
                ) from None
    tail = (result.stdout + result.stderr).strip().splitlines()[-25:]
    raise CommandFailed(result.argv, result.returncode, None, tail)


def describe_active(triton: TritonFacts) -> str:
    """The backend Triton would run on, in words; Triton's own "0 active drivers ([]). There should only be
    one." (triton/runtime/driver.py, on a machine without a GPU) said plainly. Pure."""
    active = triton.active
    if active is not None:
        return f"{active.backend}:{active.arch} (warp {active.warp_size})"
    error = triton.active_error or ""
    if not error or re.search(r"\b0 active drivers\b", error):
        return "none: Triton found no GPU driver it can use (no GPU here, or its driver library does not load)"
    return f"none ({error})"


def choose_mode(environment: ProbedEnvironment) -> VerifyMode:
    """GPU when torch sees one; the interpreter otherwise. Pure."""
    return "gpu" if environment.torch is not None and environment.torch.gpu else "interpreter"


def require_packages(into: inside.InstallTarget, environment: ProbedEnvironment, mode: VerifyMode) -> None:
    """torch (both modes) and numpy (the interpreter computes with it): ToolMissing naming the fix."""
    needed = [("torch", environment.torch is not None, environment.torch_error)]
    if mode == "interpreter":
        needed.append(("numpy", environment.numpy_version is not None, environment.numpy_error))
    for module, present, error in needed:
        if not present:
            why = f"{module} is needed to check the kernels' results" + (
                " and by Triton's interpreter (no GPU here)" if module == "numpy" else ""
            )
            raise inside.missing_module_error(
                into, {"module": module, "message": f"{error or module + ' is not installed'}; {why}"}
            )


def run_kernels(ctx: AppContext, python: Path, mode: VerifyMode) -> tuple[list[Check], Bandwidth | None]:
    env: dict[str, str | None] = {"TRITON_INTERPRET": "1" if mode == "interpreter" else None}
    result = ctx.runner.capture(
        [python, inside.script("tritondev_kernels.py"), mode],
        step="verify-kernels",
        check=False,
        env=env,
        timeout=KERNEL_TIMEOUT_S,
    )
    checks: list[Check] = []
    bandwidth: Bandwidth | None = None
    where = "on the GPU" if mode == "gpu" else "under the interpreter"
    for event in inside.events(result.stdout):
        kind = event.get("event")
        if kind == "error":
            if event.get("kind") == "missing":
                raise inside.missing_module_error(install_target(ctx), event)
            checks.append(Check("kernels", False, str(event.get("message")), {"tail": event.get("tail") or []}))
        elif kind == "kernel":
            name = str(event.get("name"))
            data = {k: v for k, v in event.items() if k not in ("event", "name", "ok")}
            if event.get("ok"):
                summary = f"{name} ran {where}; matches torch (max error {event.get('max_abs_err'):.2g})"
            elif "error" in event:
                summary = f"{name} failed {where}: " + "; ".join((event.get("tail") or [str(event["error"])])[-1:])
            else:
                summary = (
                    f"{name} differs from torch: max error {event.get('max_abs_err')} > "
                    f"tolerance {event.get('tolerance')}"
                )
            checks.append(Check(name, bool(event.get("ok")), summary, data))
        elif kind == "bandwidth":
            try:
                bandwidth = read_bandwidth(Fields(event, "tritondev_kernels.py: bandwidth"))
            except BadField as exc:
                bandwidth = Bandwidth(False, error=str(exc))
    if not any(c.name in ("vector_add", "softmax", "matmul") for c in checks):
        tail = (result.stdout + "\n" + result.stderr).strip().splitlines()[-15:]
        why = f"the kernel run exited with status {result.returncode} before reporting any kernel"
        checks.append(Check("kernels", False, why, {"tail": tail}))
    return checks, bandwidth


def compile_targets(ctx: AppContext, targets: list[Target]) -> list[Check]:
    """The sample matmul compiled for each target into a throw-away folder: every stage must appear."""

    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="tritondev-verify-") as tmp:
        plan = plan_compile(
            inside.script("tritondev_samples.py"),
            MATMUL_KERNEL,
            MATMUL_SIGNATURE,
            MATMUL_CONSTEXPRS,
            targets,
            Path(tmp),
        )
        try:
            report = run_plan(ctx, plan)
        except (CommandFailed, ExternalError, UsageError) as exc:
            # A broken compiler is a failed check here, not a reason to lose the kernel results.
            return [Check("compile", False, f"ahead-of-time compile failed: {exc.message}", {"tail": [exc.details]})]
        for result in report.results:
            name = f"compile {result.target.label}"
            if not result.ok:
                tail = result.tail[-1:] or [result.error or "failed"]
                checks.append(Check(name, False, f"ahead-of-time compile failed: {tail[0]}", {"tail": result.tail}))
                continue
            empty = [s for s in STAGES[result.target.backend] if not _non_empty(result.files.get(s))]
            stages = [s for s in result.files if s != "metadata"]
            if empty:
                summary = f"compiled, but {', '.join(empty)} missing or empty"
            else:
                summary = f"compiled to {', '.join(stages)}"
            resources = result.resources.to_json() if result.resources is not None else {}
            checks.append(Check(name, not empty, summary, {"resources": resources, "stages": stages}))
    return checks


def _non_empty(path: str | None) -> bool:
    return path is not None and Path(path).is_file() and Path(path).stat().st_size > 0


@contextmanager
def private_cache(ctx: AppContext, keep_user_cache: bool = False) -> Iterator[AppContext]:
    """`ctx` whose commands use a Triton cache of their own, removed afterwards (unless the user's is asked for)."""
    if keep_user_cache:
        # Named explicitly: the compile step otherwise gives itself a private cache too.

        yield _with_environment(ctx, {"TRITON_CACHE_DIR": str(cache_dir(os.environ, Path.home())[0])})
        return
    with tempfile.TemporaryDirectory(prefix="tritondev-verify-cache-") as cache:
        yield _with_environment(ctx, {"TRITON_CACHE_DIR": cache})


def _with_environment(ctx: AppContext, environment: dict[str, str | None]) -> AppContext:
    return ctx.with_runner(ctx.runner.with_variables(environment))


def fresh_shell(ctx: AppContext) -> AppContext:
    """`ctx` whose commands run without the tool-path variables (as a new shell would)."""
    return _with_environment(ctx, dict.fromkeys(FRESH_SHELL_UNSET))


def runtime_tools(runner: Runner, python: Path, preload: Mapping[str, str] | None = None) -> Check:
    """Does the installed Triton find ptxas (and ptxas-blackwell where it has one) on its own, run as a new
    shell would run it (without the tool-path variables)?

    `preload`: what an ASAN build of Triton needs to be imported at all (pipeline.sanitizer.preload_env)."""
    fresh = runner.with_variables(dict.fromkeys(FRESH_SHELL_UNSET))
    with tempfile.TemporaryDirectory(prefix="tritondev-tools-") as neutral:
        try:
            _, answer = inside.run_json(
                fresh,
                python,
                "tritondev_runtime_tools.py",
                step="verify-tools",
                timeout=300,
                cwd=neutral,
                env=dict(preload or {}),
            )
        except inside.BadAnswer as exc:
            return Check("ptxas", False, f"the tool probe did not answer: {exc}")
    tools = answer.get("tools") or {}
    found = {name: t for name, t in tools.items() if isinstance(t, dict) and t.get("path")}
    failed = {name: str(t.get("error")) for name, t in tools.items() if isinstance(t, dict) and not t.get("path")}
    data: dict[str, Any] = {"lookup": answer.get("lookup"), "tools": tools}
    if answer.get("error") or not found or failed:
        why = answer.get("error") or "; ".join(f"{name}: {error}" for name, error in failed.items()) or "no ptxas"
        shell = [name for name in SKIP_VARIABLES if name in os.environ]
        hint = f" (your shell sets {', '.join(shell)}: the install works only where they are set)" if shell else ""
        data["tail"] = [
            f"fix: run `tritondev setup` again: it leaves ptxas & co. in third_party/nvidia/backend/bin,"
            f" where Triton looks for them{hint}"
        ]
        return Check("ptxas", False, f"the installed Triton cannot find its tools without TRITON_*_PATH: {why}", data)
    shown = ", ".join(f"{name} {t.get('version')} at {t.get('path')}" for name, t in found.items())
    return Check("ptxas", True, f"Triton finds {shown} by itself ({answer.get('lookup')})", data)


def _gpu_target(environment: ProbedEnvironment) -> list[Target]:
    """An NVIDIA GPU's own arch, compiled ahead of time with the ptxas Triton finds by itself."""
    torch = environment.torch
    capability = torch.capability if torch is not None else None
    if torch is None or not torch.gpu or torch.hip or capability is None or len(capability) != 2:
        return []
    return parse_targets([f"cuda:{capability[0]}{capability[1]}"])


def run_verify(
    ctx: AppContext, targets: list[Target], *, keep_user_cache: bool = False, tools: Check | None = None
) -> VerifyReport:
    """Check the target environment's Triton end to end. `.ok` False: a kernel or a check failed (exit 1).

    Raises ToolMissing (exit 3) when triton, torch or (without a GPU) numpy is missing there.
    targets: compile ahead of time for these; empty means the common targets without a GPU and the
    GPU's own arch with an NVIDIA one. tools: the runtime-tools check when the caller already ran it.
    """
    with private_cache(ctx, keep_user_cache) as scoped:
        return _verify(scoped, targets, tools)


def _verify(ctx: AppContext, targets: list[Target], tools: Check | None) -> VerifyReport:
    python = ctx.target_python().executable
    with ui.working(f"verify: importing triton and torch in {python}", json=ctx.json) as say:
        environment = probe_environment(ctx, python)
        mode = choose_mode(environment)
        require_packages(install_target(ctx, environment.triton.version), environment, mode)
        checks: list[Check] = []
        if ctx.settings.backend == "nvidia":
            say("verify: asking Triton for its ptxas, as a fresh shell would")
            checks.append(tools if tools is not None else runtime_tools(ctx.runner, python))
        say("verify: running the kernels " + ("on the GPU" if mode == "gpu" else "under Triton's interpreter"))
        kernels, bandwidth = run_kernels(ctx, python, mode)
        checks += kernels
        chosen = (
            list(targets)
            if targets
            else (parse_targets(DEFAULT_TARGETS) if mode == "interpreter" else _gpu_target(environment))
        )
        if chosen:
            say(f"verify: compiling ahead of time for {', '.join(t.label for t in chosen)}")
            checks.extend(compile_targets(fresh_shell(ctx), chosen))
    return VerifyReport(
        python=str(python),
        environment=environment,
        mode=mode,
        checks=checks,
        bandwidth=bandwidth,
        targets=[t.label for t in chosen],
    )
