"""Facts the checks share, each gathered once (thread-safe) however many checks ask for it.

Everything that can hang (imports, nvidia-smi, compilers) runs as a subprocess through the runner
with a timeout. Questions for the target interpreter are scripts of bootstrap/core/target/scripts, run from the
user's cwd (first on sys.path, as in their own `python -c`); their answers are checked by
bootstrap.core.target.inside_answers, and an answer that is not as agreed is that probe's failure (ProbeFailed).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from bootstrap.core.context import AppContext
from bootstrap.core.errors import CommandFailed, TritondevError
from bootstrap.core.process.runner import Result
from bootstrap.core.target import inside
from bootstrap.core.target import inside_answers as answers
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.doctor import answers as doctor_answers
from bootstrap.doctor.gpu_readings import nvidia_smi_readings, nvml_gpu0_in_time
from bootstrap.kernels.gpus import GpuInfo, parse_nvidia_smi
from bootstrap.pipeline.host.toolchain import version_numbers, version_output

T = TypeVar("T")

IMPORT_TIMEOUT = 90.0
TOOL_TIMEOUT = 20.0
COMPILE_TIMEOUT = 240.0
# Checks whose groups ask the target's in-target probes (Facts.start begins those at once).
PROBING_GROUPS = ("packages.", "cache.", "workspace.", "ptxas.")
ARCH_PROOF = "ptxas.arch"  # the check that compiles for the arch (its triton probe compiles in the same process)


class Skip(Exception):
    """Raised inside a check: the check does not apply here (reported as skipped, with an optional fix)."""

    def __init__(self, message: str, fix: str | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix
        self.reason = reason or message  # the full story, for the check that owns the problem


class ProbeFailed(Exception):
    """A probe that should have answered did not (crash, timeout, an answer not as agreed)."""


@dataclass(frozen=True)
class Tool:
    name: str
    path: str | None
    output: str
    version: tuple[int, ...] | None


class Facts:
    def __init__(
        self,
        ctx: AppContext,
        *,
        arch: int | None = None,
        deep: bool = False,
        cwd: Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.ctx = ctx
        self.asked_arch = arch
        self.deep = deep
        self.cwd = cwd or Path.cwd()
        self.environ: dict[str, str] = dict(os.environ if environ is None else environ)
        self._values: dict[str, tuple[bool, Any]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._tmp: list[Path] = []
        self._started: list[threading.Thread] = []
        # The checks this run asked for (Facts.start); None: every check.
        self.selected: frozenset[str] | None = frozenset()

    # -- memo -------------------------------------------------------------------------------------
    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """compute() once per key; concurrent callers wait; an exception is remembered and re-raised."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                try:
                    self._values[key] = (True, compute())
                except BaseException as exc:
                    self._values[key] = (False, exc)
            good, value = self._values[key]
        if not good:
            raise value
        return value  # type: ignore[no-any-return]

    def _known(self, key: str, value: Any) -> None:
        """A fact learnt on the way to another (the compile proof, by the triton probe's own process)."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            self._values.setdefault(key, (True, value))

    def close(self) -> None:
        """Wait for the probes begun and remove the temporary folders; again, nothing more to do."""
        for thread in self._started:
            thread.join()
        self._started.clear()
        with self._guard:
            folders, self._tmp = self._tmp, []
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    def __enter__(self) -> Facts:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def start(self, selected: frozenset[str] | None) -> None:
        """Begin, beside the interpreter's own probe, the in-target probes that the selected checks ask
        for (the packages, cache and workspace checks: the environment listing and `import triton`), so
        that neither waits for the other; a check then finds its answer made or being made.
        `selected` None: every check (so known before the catalog of checks is imported)."""
        self.selected = selected
        if selected is not None and not any(name.startswith(PROBING_GROUPS) for name in selected):
            return
        self.ctx.target_choice()  # chosen once, here, before the threads ask
        for ask in (self.environment, self.triton_probe):
            thread = threading.Thread(target=_quietly(ask), name=f"doctor-{ask.__name__}")
            thread.start()
            self._started.append(thread)

    def runs(self, check: str) -> bool:
        """Whether this run asked for `check` (every check, where it named none)."""
        return self.selected is None or check in self.selected

    def tempdir(self, prefix: str) -> Path:
        folder = Path(tempfile.mkdtemp(prefix=f"tritondev-doctor-{prefix}-"))
        with self._guard:
            self._tmp.append(folder)
        return folder

    # -- the target environment -------------------------------------------------------------------
    def target(self) -> TargetPython:
        """The target interpreter (the command's, probed once by the context), or Skip with the fix."""
        try:
            return self.memo("target", self.ctx.target_python)
        except TritondevError as exc:
            raise Skip(
                "needs the target environment (see python.interpreter)",
                exc.fix,
                f"no target environment: {exc.message}",
            ) from None

    def probe(self, parse: Callable[[dict[str, Any]], T], name: str, *args: str, step: str, **options: Any) -> T:
        """The answer of in-target script `name`, checked by `parse` (bootstrap.core.target.inside_answers)."""
        return self._probe(parse, name, *args, step=step, **options)[1]

    def _probe(
        self,
        parse: Callable[[dict[str, Any]], T],
        name: str,
        *args: str,
        step: str,
        timeout: float = IMPORT_TIMEOUT,
        env: Mapping[str, str | None] | None = None,
        cwd: Path | None = None,
        as_user: bool = True,
    ) -> tuple[Result, T]:
        """Run script `name` in the target; ProbeFailed when it gives no answer or one not as agreed.

        as_user: from the user's cwd, which comes first on sys.path as in their own `python -c` /
        `python -m`, so that what a triton/ folder there does is what the probe sees.
        """
        # The interpreter the command chose, probed (target()) beside this script rather than before it:
        # the script's answer counts only once that probe found a usable environment (Skip otherwise).
        python = self.ctx.target_choice()[0]
        try:
            result, data = inside.run_json(
                self.ctx.runner,
                python,
                name,
                *args,
                step=step,
                timeout=timeout,
                env=env,
                cwd=cwd or self.cwd,
                as_user_runs=as_user,
            )
        except (TritondevError, inside.BadAnswer) as exc:
            self.target()  # an unusable target is the asking check's Skip, whatever the script did
            if isinstance(exc, inside.BadAnswer):
                raise ProbeFailed(f"{step}: {exc}") from None
            if isinstance(exc, CommandFailed):
                raise ProbeFailed(exc.message) from None
            raise
        self.target()
        try:
            return result, parse(data)
        except inside.BadAnswer as exc:
            raise ProbeFailed(f"{step}: {name} answered, but not as agreed: {exc}") from None

    def environment(self) -> answers.Environment:
        """Distributions and torch's requirements, read without importing anything."""
        return self.memo(
            "environment", lambda: self.probe(answers.environment, "tritondev_environment.py", step="doctor-env-probe")
        )

    def triton_probe(self, arch: int | None = None) -> answers.TritonImport:
        """`import triton` as the user gets it; with an arch, also the ptxas Triton uses for it.

        Where this run proves the arch (ptxas.arch), one start of the target answers all three: the
        import, the ptxas, and the compile proof (compile_for(arch, {}) then finds it known), and the
        import facts without an arch are that same answer's."""
        if arch is None and self.runs(ARCH_PROOF):
            with_arch = self._arch_if_known()
            if with_arch is not None:
                try:
                    return self.triton_probe(with_arch)
                except ProbeFailed:
                    pass  # the compile hung or crashed the probe: the import alone is still asked below
        return self.memo(f"triton-probe-{arch}", lambda: self._triton_probe(arch))

    def _triton_probe(self, arch: int | None) -> answers.TritonImport:
        plain = (answers.triton_import, "tritondev_triton.py", str(arch or ""))
        if arch is None or not self.runs(ARCH_PROOF):
            return self.probe(*plain, step="doctor-triton-probe")
        try:
            result, (found, proof) = self._probe(
                doctor_answers.triton_and_proof,
                "tritondev_triton.py",
                str(arch),
                str(self.tempdir("cache")),
                step="doctor-triton-probe",
                timeout=COMPILE_TIMEOUT,
                env={"TMPDIR": str(self.tempdir("tmp"))},  # as compile_for's: a failed proof's .ptx goes with it
            )
        except ProbeFailed:
            # Perhaps the compile, not the import: ask for the import alone; compile_for then proves it
            # in a run of its own (and reports what went wrong there).
            return self.probe(*plain, step="doctor-triton-probe")
        if proof is not None:
            self._known(self._compile_key(arch, {}), replace(proof, stderr=result.stderr[-3000:]))
        return found

    def distributions(self) -> list[answers.Distribution]:
        env = self.environment()
        if env.distributions is None:
            raise ProbeFailed(f"could not list distributions: {env.errors.get('distributions')}")
        return list(env.distributions)

    def triton_owners(self) -> list[answers.Distribution]:
        return [d for d in self.distributions() if d.owns_triton_files]

    # -- tools on PATH ----------------------------------------------------------------------------
    def tool(self, name: str) -> Tool:
        """A tool on the user's PATH and its version, read the way setup reads it (pipeline.toolchain)."""

        def probe() -> Tool:
            path = shutil.which(name, path=self.environ.get("PATH", ""))
            if path is None:
                return Tool(name, None, "", None)
            output = version_output(self.ctx.runner, path, name, timeout=TOOL_TIMEOUT)
            if output is None:
                return Tool(name, path, f"{path} did not answer its version query", None)
            return Tool(name, path, output.strip(), version_numbers(output))

        return self.memo(f"tool-{name}", probe)

    # -- GPU --------------------------------------------------------------------------------------
    def _smi(self) -> str | None:
        return shutil.which("nvidia-smi", path=self.environ.get("PATH", ""))

    def gpu_info(self) -> GpuInfo | None:
        """What nvidia-smi says; None when there is no NVIDIA driver (no nvidia-smi). Its two readings
        (the GPU query, and the banner that alone names the driver's CUDA version) run side by side."""

        def probe() -> GpuInfo | None:
            smi = self._smi()
            if smi is None:
                return None
            try:
                q, b = nvidia_smi_readings(self.ctx.runner, smi, self.cwd)
            except CommandFailed as exc:
                raise ProbeFailed(exc.message) from None
            return parse_nvidia_smi(q.stdout if q.ok else "", b.stdout if b.ok else "")

        return self.memo("gpu", probe)

    def arch(self) -> tuple[int | None, str]:
        """The arch to check: --arch, else the first GPU's; with where it came from.

        The first GPU's is asked of NVML in this process (no process, no CUDA context) where the
        driver has one, so that the compile proof need not wait for nvidia-smi; else nvidia-smi's."""
        if self.asked_arch is not None:
            return self.asked_arch, "--arch"
        fast = self.memo("nvml-gpu0", self._nvml_gpu0)
        if fast is not None:
            return fast[0], f"GPU 0 ({fast[1]})"
        info = self.gpu_info()
        if info and info.gpus and info.gpus[0].arch:
            return info.gpus[0].arch, f"GPU 0 ({info.gpus[0].name})"
        return None, "no GPU"

    def _arch_if_known(self) -> int | None:
        """The arch, where it is known without nvidia-smi (--arch, NVML); None otherwise."""
        if self.asked_arch is not None:
            return self.asked_arch
        fast = self.memo("nvml-gpu0", self._nvml_gpu0)
        return fast[0] if fast is not None else None

    def _nvml_gpu0(self) -> tuple[int, str] | None:
        """(compute capability as 90, name) of GPU 0 from NVML, the library nvidia-smi reads; None
        where there is no nvidia-smi (no driver: as before), no NVML, or it does not answer in time."""
        if self._smi() is None:
            return None
        return nvml_gpu0_in_time()

    def compile_for(self, arch: int, env: Mapping[str, str | None]) -> doctor_answers.CompileCheck:
        """Compile the tiny kernel for cuda:<arch> in the target env with `env` on top (fresh cache)."""

        def probe() -> doctor_answers.CompileCheck:
            cache = self.tempdir("cache")
            # Triton's own temporary folder too: make_cubin leaves its .ptx there when ptxas fails (the
            # proof's very case), and this one goes with doctor's other folders.
            full: dict[str, str | None] = {
                "TRITON_CACHE_DIR": str(cache),
                "TRITON_ALWAYS_COMPILE": None,
                "TMPDIR": str(self.tempdir("tmp")),
                **env,
            }
            # Run as a file from a folder of its own, not as the user: the proof is about the installed Triton.
            result, answer = self._probe(
                doctor_answers.compile_check,
                "tritondev_compile_check.py",
                str(arch),
                step="doctor-compile",
                timeout=COMPILE_TIMEOUT,
                env=full,
                cwd=self.tempdir("compile"),
                as_user=False,
            )
            return replace(answer, stderr=result.stderr[-3000:])

        return self.memo(self._compile_key(arch, env), probe)

    @staticmethod
    def _compile_key(arch: int, env: Mapping[str, str | None]) -> str:
        return "compile-" + str(arch) + "-" + json.dumps(sorted((k, v) for k, v in env.items()))


def _quietly(ask: Callable[[], object]) -> Callable[[], None]:
    """`ask` for its memo only: what it raises is kept there for the check that asks next."""

    def run() -> None:
        try:
            ask()
        except Exception:  # remembered by Facts.memo, raised to the check that asks next
            pass

    return run
