"""Facts the checks share, each gathered once (thread-safe) however many checks ask for it.

Everything that can hang (imports, nvidia-smi, compilers) runs as a subprocess through the runner
with a timeout. Questions for the target interpreter are scripts of bootstrap/core/scripts, run from the
user's cwd (first on sys.path, as in their own `python -c`); their answers are checked by
bootstrap.core.inside_answers, and an answer that is not as agreed is that probe's failure (ProbeFailed).
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

from bootstrap.core import inside
from bootstrap.core import inside_answers as answers
from bootstrap.core.context import AppContext
from bootstrap.core.errors import CommandFailed, TritondevError
from bootstrap.core.interpreter import TargetPython
from bootstrap.core.runner import Result
from bootstrap.kernels.gpus import GpuInfo, read_nvidia
from bootstrap.pipeline.host.toolchain import version_numbers, version_output

T = TypeVar("T")

IMPORT_TIMEOUT = 90.0
TOOL_TIMEOUT = 20.0
COMPILE_TIMEOUT = 240.0


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

    def close(self) -> None:
        for folder in self._tmp:
            shutil.rmtree(folder, ignore_errors=True)

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
        """The answer of in-target script `name`, checked by `parse` (bootstrap.core.inside_answers)."""
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
        python = self.target().executable
        try:
            result, data = inside.run_json(
                self.ctx.runner, python, name, *args, step=step, timeout=timeout, env=env,
                cwd=cwd or self.cwd, as_user_runs=as_user,
            )
        except CommandFailed as exc:
            raise ProbeFailed(exc.message) from None
        except inside.BadAnswer as exc:
            raise ProbeFailed(f"{step}: {exc}") from None
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
        """`import triton` as the user gets it; with an arch, also the ptxas Triton uses for it."""
        return self.memo(
            f"triton-probe-{arch}",
            lambda: self.probe(
                answers.triton_import, "tritondev_triton.py", str(arch or ""), step="doctor-triton-probe"
            ),
        )

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
    def gpu_info(self) -> GpuInfo | None:
        """What nvidia-smi says; None when there is no NVIDIA driver (no nvidia-smi)."""

        def probe() -> GpuInfo | None:
            smi = shutil.which("nvidia-smi", path=self.environ.get("PATH", ""))
            if smi is None:
                return None
            try:
                return read_nvidia(self.ctx.runner, smi, step="doctor-nvidia-smi", cwd=self.cwd)
            except CommandFailed as exc:
                raise ProbeFailed(exc.message) from None

        return self.memo("gpu", probe)

    def arch(self) -> tuple[int | None, str]:
        """The arch to check: --arch, else the first GPU's; with where it came from."""
        if self.asked_arch is not None:
            return self.asked_arch, "--arch"
        info = self.gpu_info()
        if info and info.gpus and info.gpus[0].arch:
            return info.gpus[0].arch, f"GPU 0 ({info.gpus[0].name})"
        return None, "no GPU"

    def compile_for(self, arch: int, env: Mapping[str, str | None]) -> answers.CompileCheck:
        """Compile the tiny kernel for cuda:<arch> in the target env with `env` on top (fresh cache)."""

        def probe() -> answers.CompileCheck:
            cache = self.tempdir("cache")
            full: dict[str, str | None] = {"TRITON_CACHE_DIR": str(cache), "TRITON_ALWAYS_COMPILE": None, **env}
            # Run as a file from a folder of its own, not as the user: the proof is about the installed Triton.
            result, answer = self._probe(
                answers.compile_check, "tritondev_compile_check.py", str(arch), step="doctor-compile",
                timeout=COMPILE_TIMEOUT, env=full, cwd=self.tempdir("compile"), as_user=False,
            )
            return replace(answer, stderr=result.stderr[-3000:])

        key = "compile-" + str(arch) + "-" + json.dumps(sorted((k, v) for k, v in env.items()))
        return self.memo(key, probe)
