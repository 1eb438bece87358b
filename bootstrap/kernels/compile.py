"""`tritondev compile`: cross-compile one kernel for several targets, every stage and SASS, no GPU needed.

The plan (inputs checked, the request for the in-target script) is pure. The driver runs the
script once for all targets, so Triton is imported once, and disassembles each cubin with
nvdisasm while the script goes on compiling the next target.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import CommandFailed, ExternalError, TritondevError, UsageError
from bootstrap.core.io import writes
from bootstrap.core.process.runner import Result
from bootstrap.core.target import inside
from bootstrap.kernels import install_target
from bootstrap.kernels import usage as kernel_usage
from bootstrap.kernels.compile_report import Autotune, CompileReport, TargetResult
from bootstrap.kernels.diagnostics import printed_warnings
from bootstrap.kernels.disasm import CubinReading, read_cubin
from bootstrap.kernels.nvidia_tools import nvidia_tools
from bootstrap.kernels.signature import KernelArgs, parse_kernel_args
from bootstrap.kernels.targets import Target

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

MARKER_FILE = ".tritondev-compile"  # keep in sync with scripts/tritondev_aot.py
TAIL_LINES = 25
TEMPORARY = "tmp"  # the in-target compile's TMPDIR inside its private folder, unless the caller gives one
STAGES = {"cuda": ("ttir", "ttgir", "llir", "ptx", "cubin"), "hip": ("ttir", "ttgir", "llir", "amdgcn", "hsaco")}


@dataclass(frozen=True)
class CompilePlan:
    source: Path
    kernel: str
    args: KernelArgs
    targets: tuple[Target, ...]  # in the order the user gave them
    out_dir: Path
    options: dict[str, int]
    config: int | None = None  # which of an @triton.autotune kernel's configs (--config N)

    @property
    def run_order(self) -> tuple[Target, ...]:
        """CUDA first: each cubin's disassembly then overlaps the compiles that follow it."""
        return tuple(sorted(self.targets, key=lambda t: t.backend != "cuda"))

    def request(self, targets: list[Target] | None = None) -> dict[str, Any]:
        """What the in-target script needs; `targets` narrows it (a re-run after a crash)."""
        return {
            "source": str(self.source),
            "kernel": self.kernel,
            "params": [p.to_json() for p in self.args.params],
            "constexprs": self.args.constexprs,
            "positional": [p.to_json() for p in self.args.positional],
            "targets": [{**t.to_json(), "folder": t.folder} for t in (targets or self.run_order)],
            "out": str(self.out_dir),
            "options": self.options,
            "config": self.config,
        }


def plan_compile(
    source: Path,
    kernel: str,
    signature: str | None,
    constexprs: dict[str, str],
    targets: list[Target],
    out_dir: Path,
    options: dict[str, int] | None = None,
    config: int | None = None,
) -> CompilePlan:
    """Check everything that can be checked without Triton; UsageError (exit 2) names the bad part."""
    items = [f"{k}={v}" for k, v in constexprs.items()]
    args = parse_kernel_args(signature, items)
    if not targets:
        raise UsageError("no --target given", fix="name at least one, e.g. --target cuda:90 --target hip:gfx942")
    path = source.expanduser()
    if not path.exists():
        raise UsageError(f"kernel file {source} does not exist", fix="give FILE.py::KERNEL with an existing file")
    if not path.is_file():
        raise UsageError(f"kernel file {source} is not a file", fix="give FILE.py::KERNEL with a Python file")
    out = out_dir.expanduser().absolute()
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out_dir} exists and is not a folder", fix="choose a folder for --out")
    for target in targets:
        folder = out / target.folder
        if folder.exists() and (not folder.is_dir() or (any(folder.iterdir()) and not (folder / MARKER_FILE).exists())):
            raise UsageError(
                f"{folder} exists and was not written by tritondev compile; refusing to replace it",
                fix="choose another --out folder, or move that folder away",
            )
    if config is not None and config < 0:
        raise UsageError(f"--config {config}: configs are numbered from 0", fix="give --config 0 or higher")
    return CompilePlan(path.resolve(), kernel, args, tuple(targets), out, dict(options or {}), config)


class _Driver:
    """State of one compile run: events as they arrive, disassembly jobs running beside the compiler."""

    def __init__(self, ctx: AppContext, plan: CompilePlan, pool: ThreadPoolExecutor) -> None:
        self.ctx = ctx
        self.plan = plan
        self.pool = pool
        self.hello: dict[str, Any] = {}
        self.loaded: dict[str, Any] | None = None  # the user's file was imported (a later death is Triton's)
        self.kernel: dict[str, Any] = {}
        self.error: dict[str, Any] | None = None
        self.targets: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, Future[CubinReading]] = {}
        self.nvdisasms: list[str] = []
        self.output: list[str] = []
        self.since_event: list[str] = []  # what the compiler printed for the target being compiled

    @property
    def nvdisasm(self) -> str | None:
        """The nvdisasm Triton itself would use (the first of those tried)."""
        return self.nvdisasms[0] if self.nvdisasms else None

    def on_line(self, line: str) -> None:
        event = inside.parse_event(line)
        if event is None:
            self.output.append(line)
            if line.strip():
                self.since_event.append(line.rstrip("\n"))
            return
        printed, self.since_event = self.since_event, []
        kind = event.get("event")
        if kind == "hello":
            self.hello = event
            bundled = event.get("nvidia_bin")
            self.nvdisasms = nvidia_tools("nvdisasm", bundled, which=self.ctx.runner.which)
        elif kind == "loaded":
            self.loaded = event
        elif kind == "kernel":
            self.kernel = event
        elif kind == "error":
            self.error = event
        elif kind == "target":
            label = str(event["label"])
            # MLIR and LLVM write their diagnostics to stderr, not into the exception.
            event["printed"] = printed[-TAIL_LINES:]
            if not event.get("ok"):
                event["tail"] = printed[-TAIL_LINES:] + list(event.get("tail") or [])
                event["printed_all"] = printed  # Triton prints a failed PTX whole: kept in a file, not shown
            self.targets[label] = event
            cubin = event.get("files", {}).get("cubin") if event.get("ok") else None
            if cubin:
                self.jobs[label] = self.pool.submit(
                    read_cubin, self.ctx.runner, Path(cubin), str(event.get("name")), self.nvdisasms
                )

    def result_for(self, target: Target) -> TargetResult:
        event = self.targets.get(target.label)
        if event is None:
            return TargetResult(target, False, error="not compiled", tail=self.output[-TAIL_LINES:])
        said = [str(w) for w in event.get("warnings") or []] + printed_warnings(event.get("printed") or [])
        if not event.get("ok"):
            return TargetResult(
                target,
                False,
                error=str(event.get("error")),
                tail=list(event.get("tail") or []),
                warnings=said,
                output=list(event.get("printed_all") or []),
            )
        files = {k: str(v) for k, v in dict(event.get("files") or {}).items()}
        metadata = dict(event.get("metadata") or {})
        folder = Path(files["metadata"]).parent if "metadata" in files else self.plan.out_dir / target.folder
        result = TargetResult(
            target, True, folder=folder, files=files, warnings=said, output=list(event.get("printed") or [])
        )
        if target.backend == "cuda":
            job = self.jobs.get(target.label)
            usage = None
            if job is not None:
                try:
                    reading = job.result()
                    result.files.update(reading.files)
                    result.warnings += reading.warnings
                    result.notes, result.sass_by, usage = reading.notes, reading.sass_by, reading.usage
                except (TritondevError, OSError) as exc:
                    # The compile itself succeeded; a listing that could not be made is a warning.
                    result.warnings.append(f"SASS and resource usage not read: {exc}")
            result.resources = kernel_usage.cuda_summary(metadata, usage, target.warp_size)
        else:
            amdgcn = files.get("amdgcn")
            text = Path(amdgcn).read_text(encoding="utf-8", errors="replace") if amdgcn else ""
            info = kernel_usage.parse_amdgcn_info(text, str(event.get("name")))
            result.resources = kernel_usage.hip_summary(metadata, info, target.warp_size, str(target.arch))
        missing = [stage for stage in STAGES[target.backend] if stage not in files]
        if missing:
            result.warnings.append(f"this Triton wrote no {', '.join(missing)} for {target.label}")
        return result


def _exit_text(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def environment_seen(overrides: Mapping[str, str | None], environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the runner's commands get: `environ` with its overrides (None: unset)."""
    seen = dict(environ)
    for name, value in overrides.items():
        if value is None:
            seen.pop(name, None)
        else:
            seen[name] = value
    return seen


def compile_environment(tmp: Path, temporary: Path, environ: dict[str, str] | None = None) -> dict[str, str | None]:
    """The in-target script's variables: no interpreter (it would turn @triton.jit into an interpreted
    function that cannot be compiled), a private Triton cache unless the user chose one with
    TRITON_CACHE_DIR, so that a compile for inspection changes nothing in ~/.triton, and `temporary` as
    TMPDIR: Triton's make_cubin writes the PTX to a temporary file and removes it only when ptxas succeeds
    (3.2 to 3.9), so each target whose ptxas fails, retried with another, would leave one in the user's
    temporary folder. Pure."""
    environ = dict(os.environ) if environ is None else environ
    env: dict[str, str | None] = {"TRITON_INTERPRET": None, "TMPDIR": str(temporary)}
    if not environ.get("TRITON_CACHE_DIR"):
        env["TRITON_CACHE_DIR"] = str(tmp / "triton-cache")
    return env


def run_plan(
    ctx: AppContext, plan: CompilePlan, extra_env: Mapping[str, str] | None = None, temporary: Path | None = None
) -> CompileReport:
    """Compile every target of `plan`; extra_env: variables for Triton (another ptxas) on top of ours;
    temporary: the caller's folder for Triton's temporary files (a failed ptxas run's PTX is read from
    there after this returns), else one inside this run's private folder, removed with it."""
    python = ctx.target_python().executable
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool, tempfile.TemporaryDirectory(prefix="tritondev-") as tmp:
        driver = _Driver(ctx, plan, pool)
        remaining = list(plan.run_order)
        request_file = Path(tmp) / "request.json"
        if temporary is None:
            temporary = Path(tmp) / TEMPORARY
            temporary.mkdir()
        # The caller's runner may already give the commands a cache (verify's private one, or the user's).
        env = {
            **compile_environment(Path(tmp), temporary, environment_seen(ctx.runner.environment, os.environ)),
            **(extra_env or {}),
        }
        while remaining:
            writes.replace_text(request_file, json.dumps(plan.request(remaining)), verbatim=True)
            result = ctx.runner.stream(
                [python, inside.script("tritondev_aot.py"), request_file],
                step="compile",
                reads_only=True,
                check=False,
                on_line=driver.on_line,
                env=env,
            )
            if driver.error is not None:
                raise_script_error(ctx, python, driver.error)
            remaining = [t for t in remaining if t.label not in driver.targets]
            if result.returncode == 0 or not remaining:
                break
            remaining = _after_a_death(plan, driver, result, remaining)
        results = [driver.result_for(t) for t in plan.targets]
    kernel = driver.kernel
    return CompileReport(
        kernel=plan.kernel,
        source=plan.source,
        out_dir=plan.out_dir,
        triton_version=str(driver.hello.get("triton_version", "")),
        triton_file=str(driver.hello.get("triton_file", "")),
        python=str(python),
        nvdisasm=driver.nvdisasm if any(t.backend == "cuda" for t in plan.targets) else None,
        results=results,
        seconds=time.monotonic() - started,
        warnings=[str(w) for w in (driver.loaded or {}).get("warnings") or []],
        autotune=_autotune(kernel),
        cache_dir=str(os.environ.get("TRITON_CACHE_DIR") or "a temporary folder, removed afterwards"),
    )


def _after_a_death(plan: CompilePlan, driver: _Driver, result: Result, remaining: list[Target]) -> list[Target]:
    """The targets left to compile in a fresh process after the script died with `remaining` to go: a death
    before the compiler ran stops the whole compile; a death in the compiler is the first target's."""
    if not driver.hello:
        # Died before Triton was even imported: nothing target-specific to report.
        raise CommandFailed(result.argv, result.returncode, None, driver.output[-TAIL_LINES:])
    if driver.loaded is None:
        # Died while the user's file was being imported: the file's doing, not the compiler's.
        raise UsageError(
            f"{plan.source} ended the process while tritondev imported it ({_exit_text(result.returncode)})",
            fix=f"run `python {plan.source}` to see why; importing the file must only define its kernels",
            details="\n".join(driver.since_event[-TAIL_LINES:]) or None,
        )
    # LLVM aborts the whole process on some errors: blame the target it was compiling, go on
    # with the others in a fresh process.
    crashed, *rest = remaining
    driver.targets[crashed.label] = {
        "label": crashed.label,
        "ok": False,
        "error": f"the compiler died ({_exit_text(result.returncode)})",
        "tail": driver.since_event[-TAIL_LINES:],
    }
    driver.since_event = []
    return rest


def _autotune(kernel: dict[str, Any]) -> Autotune | None:
    """The kernel event's autotune configs, when it has any (`--config N` in the words of each)."""
    configs, config = kernel.get("configs"), kernel.get("config")
    if not configs or not isinstance(configs, list):
        return None
    return Autotune(tuple(str(c) for c in configs), config if isinstance(config, int) else None)


def raise_script_error(ctx: AppContext, python: Path, event: dict[str, Any]) -> None:
    kind = event.get("kind")
    message = str(event.get("message") or "the compile script failed")
    tail = "\n".join(str(line) for line in event.get("tail") or []) or None
    if kind == "missing":
        raise inside.missing_module_error(install_target(ctx), event)
    if kind in ("usage", "unsupported"):
        fix = event.get("fix") or "check FILE.py::KERNEL, --signature and --constexpr against the kernel's arguments"
        raise UsageError(message, fix=str(fix), details=tail)
    if kind == "write":
        raise ExternalError(message, fix="free disk space there (df -h), or choose another --out DIR", details=tail)
    raise ExternalError(message, fix="check the Triton install: tritondev doctor", details=tail)
