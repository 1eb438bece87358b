"""Facts the checks share, each gathered once (thread-safe) however many checks ask for it.

Everything that can hang (imports, nvidia-smi, compilers) runs as a subprocess through the runner
with a timeout. The target interpreter answers many questions in one probe run (scripts.py).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bootstrap.core.context import AppContext
from bootstrap.core.errors import CommandFailed, ToolMissing, TritondevError
from bootstrap.core.interpreter import TargetPython
from bootstrap.core.runner import Result
from bootstrap.doctor import scripts
from bootstrap.doctor.versions import parse_tool_version

T = TypeVar("T")

IMPORT_TIMEOUT = 90.0
TOOL_TIMEOUT = 20.0
COMPILE_TIMEOUT = 240.0


# Runs a probe script file with sys.argv shifted, keeping `-c`'s sys.path (cwd first).
LOADER = "import sys; p = sys.argv[1]; sys.argv = sys.argv[1:]; exec(compile(open(p).read(), p, 'exec'))"


class Skip(Exception):
    """Raised inside a check: the check does not apply here (reported as skipped, with an optional fix)."""

    def __init__(self, message: str, fix: str | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix
        self.reason = reason or message  # the full story, for the check that owns the problem


class ProbeFailed(Exception):
    """A probe that should have answered did not (crash, timeout, garbage output)."""


@dataclass(frozen=True)
class Tool:
    name: str
    path: str | None
    output: str
    version: tuple[int, ...] | None


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    arch: int | None  # compute capability as 90, 121, ...
    driver: str


@dataclass(frozen=True)
class GpuInfo:
    driver: str | None
    cuda: str | None  # the highest CUDA version the driver supports ("CUDA Version: 12.8")
    gpus: tuple[Gpu, ...]


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
        """The target interpreter, or Skip with the fix when there is none yet."""

        def inspect() -> TargetPython:
            return self.ctx.target_python()

        try:
            return self.memo("target", inspect)
        except TritondevError as exc:
            raise Skip(
                "needs the target environment (see python.interpreter)",
                exc.fix,
                f"no target environment: {exc.message}",
            ) from None

    def run_python(
        self,
        code: str,
        *args: str,
        step: str,
        timeout: float = IMPORT_TIMEOUT,
        env: Mapping[str, str | None] | None = None,
    ) -> dict[str, Any]:
        """Run `code` in the target interpreter from the user's cwd and parse its JSON answer.

        The script is written to a file and started through a one-line `-c` loader: the command line
        stays short (it is echoed with -v), and sys.path starts with the cwd as in the user's own
        `python -c` / `python -m`, so what a triton/ folder there does is what the probe sees.
        """
        python = self.target().executable
        folder = self.tempdir(step)
        script = folder / f"{step.replace('-', '_')}.py"
        script.write_text(code, encoding="utf-8")
        argv = [str(python), "-B", "-c", LOADER, str(script), *args]
        result = self._run(argv, step=step, timeout=timeout, env=env)
        return parse_json_tail(result, step)

    def _run(
        self,
        argv: Sequence[str],
        *,
        step: str,
        timeout: float,
        env: Mapping[str, str | None] | None = None,
        cwd: Path | None = None,
    ) -> Result:
        try:
            return self.ctx.runner.run(
                argv, step=step, probe=True, check=False, timeout=timeout, env=env, cwd=cwd or self.cwd
            )
        except CommandFailed as exc:
            raise ProbeFailed(exc.message) from None

    def env_probe(self) -> dict[str, Any]:
        return self.memo("env-probe", lambda: self.run_python(scripts.ENV_PROBE, step="doctor-env-probe"))

    def triton_probe(self, arch: int | None = None) -> dict[str, Any]:
        key = f"triton-probe-{arch}"
        return self.memo(
            key, lambda: self.run_python(scripts.TRITON_PROBE, str(arch or ""), step="doctor-triton-probe")
        )

    def distributions(self) -> list[dict[str, Any]]:
        probe = self.env_probe()
        if "distributions" not in probe:
            raise ProbeFailed(f"could not list distributions: {probe['errors'].get('distributions')}")
        return list(probe["distributions"])

    def triton_owners(self) -> list[dict[str, Any]]:
        return [d for d in self.distributions() if d["owns_triton_files"]]

    # -- tools on PATH ----------------------------------------------------------------------------
    def tool(self, name: str, args: Sequence[str] = ("--version",)) -> Tool:
        def probe() -> Tool:
            path = shutil.which(name, path=self.environ.get("PATH", ""))
            if path is None:
                return Tool(name, None, "", None)
            try:
                result = self._run([path, *args], step=f"doctor-{name}", timeout=TOOL_TIMEOUT)
            except (ProbeFailed, ToolMissing) as exc:
                return Tool(name, path, str(exc), None)
            output = (result.stdout + result.stderr).strip()
            return Tool(name, path, output, parse_tool_version(output))

        return self.memo(f"tool-{name}", probe)

    # -- GPU --------------------------------------------------------------------------------------
    def gpu_info(self) -> GpuInfo | None:
        """What nvidia-smi says; None when there is no NVIDIA driver (no nvidia-smi)."""

        def probe() -> GpuInfo | None:
            smi = shutil.which("nvidia-smi", path=self.environ.get("PATH", ""))
            if smi is None:
                return None
            query = self._run(
                [smi, "--query-gpu=index,name,compute_cap,driver_version", "--format=csv,noheader"],
                step="doctor-nvidia-smi",
                timeout=TOOL_TIMEOUT,
            )
            header = self._run([smi], step="doctor-nvidia-smi", timeout=TOOL_TIMEOUT)
            return parse_nvidia_smi(query.stdout if query.ok else "", header.stdout if header.ok else "")

        return self.memo("gpu", probe)

    def arch(self) -> tuple[int | None, str]:
        """The arch to check: --arch, else the first GPU's; with where it came from."""
        if self.asked_arch is not None:
            return self.asked_arch, "--arch"
        info = self.gpu_info()
        if info and info.gpus and info.gpus[0].arch:
            return info.gpus[0].arch, f"GPU 0 ({info.gpus[0].name})"
        return None, "no GPU"

    def compile_for(self, arch: int, env: Mapping[str, str | None], label: str) -> dict[str, Any]:
        """Compile the tiny kernel for cuda:<arch> in the target env with `env` on top (fresh cache)."""

        def probe() -> dict[str, Any]:
            cache = self.tempdir("cache")
            full: dict[str, str | None] = {"TRITON_CACHE_DIR": str(cache), "TRITON_ALWAYS_COMPILE": None}
            full.update(env)
            python = self.target().executable
            folder = self.tempdir("compile")
            script = folder / "tritondev_doctor_compile.py"
            script.write_text(scripts.COMPILE_PROBE, encoding="utf-8")
            # Run as a file (not from the cwd): the proof is about the installed Triton.
            result = self._run(
                [str(python), "-B", str(script), str(arch)],
                step="doctor-compile",
                timeout=COMPILE_TIMEOUT,
                env=full,
                cwd=folder,
            )
            data = parse_json_tail(result, "doctor-compile")
            data["stderr"] = result.stderr[-3000:]
            return data

        key = "compile-" + str(arch) + "-" + json.dumps(sorted((k, v) for k, v in env.items()))
        return self.memo(key, probe)


def parse_json_tail(result: Result, step: str) -> dict[str, Any]:
    lines = result.stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1])
        if not isinstance(data, dict):
            raise ValueError("not an object")
        return data
    except (IndexError, ValueError):
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise ProbeFailed(
            f"{step} exited with status {result.returncode} without an answer: " + " | ".join(tail)
        ) from None


def parse_nvidia_smi(query: str, header: str) -> GpuInfo:
    """Parse `nvidia-smi --query-gpu=index,name,compute_cap,driver_version --format=csv,noheader` and
    the plain `nvidia-smi` banner (which alone names the driver's CUDA version)."""
    import re

    gpus: list[Gpu] = []
    for line in query.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 4:
            continue
        try:
            major, _, minor = parts[2].partition(".")
            arch: int | None = int(major) * 10 + int(minor or 0)
        except ValueError:
            arch = None
        try:
            index = int(parts[0])
        except ValueError:
            index = len(gpus)
        gpus.append(Gpu(index, parts[1], arch, parts[3]))
    driver = re.search(r"Driver Version:\s*([\d.]+)", header)
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", header)
    return GpuInfo(
        driver.group(1) if driver else (gpus[0].driver if gpus else None),
        cuda.group(1) if cuda else None,
        tuple(gpus),
    )
