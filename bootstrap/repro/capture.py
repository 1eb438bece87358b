"""`tritondev repro capture`: a command run as `tritondev run` runs it, with the capture hook for that run only.

The hook is a folder of files made for this run (tempfile.mkdtemp, mode 0700): `sitecustomize.py` and the
tritondev_capture*.py scripts it starts, put first on the command's PYTHONPATH. Every Python the command
starts (its workers too) imports it; nothing is installed into, or written to, the user's environment,
and the folder is removed when the command ends. PYTHONPATH over a `.pth` file because a `.pth` works only
from a site-packages folder (the environment would change); over `python -X importtime` or wrapping the
command's Python because the command may be a shell script, pytest or torchrun that starts Python itself.
A Python started with -I, -E or -S does not read PYTHONPATH or sitecustomize: nothing is captured there.

For Inductor the run also sets (unless the environment already does):
- TORCHINDUCTOR_COMPILE_THREADS=1: kernels compile in the process that launches them, where the hook sees
  each compile's specialization (a worker process compiles out of its sight);
- TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0: Inductor's static CUDA launcher calls no Triton launch hook
  (torch/_inductor/runtime/static_triton_launcher.py refuses to start when one is installed, but kernels
  loaded from the FX graph cache of an earlier run without hooks would launch past it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap import __version__
from bootstrap.core import ui
from bootstrap.core.context import AppContext
from bootstrap.core.errors import ConfigError, UsageError
from bootstrap.core.io import writes
from bootstrap.core.target import inside
from bootstrap.ir.capture import RunRequest, run_command
from bootstrap.repro.store import CAPTURE_FILE, Capture, captures_root, load_capture, new_capture_folder

DEFAULT_IO_LIMIT = 256 << 20
INDUCTOR_DEFAULTS = {"TORCHINDUCTOR_COMPILE_THREADS": "1", "TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER": "0"}


@dataclass(frozen=True)
class CaptureRequest:
    command: tuple[str, ...]
    kernel: str | None = None  # a glob of kernel names; None: every kernel
    save_io: bool = False
    io_limit: int = DEFAULT_IO_LIMIT
    out: Path | None = None


@dataclass
class CaptureReport:
    folder: Path
    returncode: int
    capture: Capture | None  # None under --dry-run
    request: CaptureRequest


def check_request(request: CaptureRequest) -> None:
    """Bad input stops before anything is created."""
    if request.kernel is not None and (not request.kernel.strip() or any(c in request.kernel for c in "/\x00\n")):
        raise UsageError(
            f"--kernel {request.kernel!r} is not a kernel name or glob",
            fix="give a kernel name or a glob of names: --kernel 'triton_per_*'",
        )
    if request.io_limit <= 0:
        raise UsageError("--io-limit must be more than 0 bytes", fix="give a size: --io-limit 512M")


def _capture_folder(ctx: AppContext, out: Path | None) -> Path:
    folder = (out or new_capture_folder(captures_root(ctx.workspace.root))).absolute()
    if folder.exists() and (not folder.is_dir() or folder.is_symlink() or any(folder.iterdir())):
        raise UsageError(
            f"capture folder {folder} already exists and is not empty",
            fix="choose a new --out (or leave it out for a fresh <workspace>/repro/<timestamp>/)",
        )
    return folder


def _hook_folder() -> Path:
    """A private folder with the hook's files, removed by the caller."""
    folder = Path(tempfile.mkdtemp(prefix="tritondev-capture-"))
    writes.anchor(folder)
    for name, source in inside.capture_hook_files().items():
        writes.replace_copy(folder / name, source)
    return folder


def _variables(request: CaptureRequest, folder: Path) -> dict[str, str | None]:
    config = {"dir": str(folder), "kernel": request.kernel, "save_io": request.save_io, "io_limit": request.io_limit}
    variables: dict[str, str | None] = {"TRITONDEV_CAPTURE": json.dumps(config)}
    for name, value in INDUCTOR_DEFAULTS.items():
        if name not in os.environ:
            variables[name] = value
    return variables


def _info(ctx: AppContext, request: CaptureRequest, started: float, returncode: int | None) -> dict[str, Any]:
    return {
        "format": 1,
        "tritondev": __version__,
        "command": list(request.command),
        "cwd": os.getcwd(),
        "kernel": request.kernel,
        "save_io": request.save_io,
        "io_limit": request.io_limit,
        "python": str(ctx.target_choice()[0]),
        "started": started,
        "returncode": returncode,
        "finished": None if returncode is None else time.time(),
    }


def run_capture(ctx: AppContext, request: CaptureRequest) -> CaptureReport:
    check_request(request)
    folder = _capture_folder(ctx, request.out)
    run = RunRequest(request.command, variables=_variables(request, folder), output_to_stderr=ctx.json)
    if ctx.dry_run:
        hook = Path(tempfile.gettempdir()) / "tritondev-capture-XXXXXXXX"
        returncode = run_command(ctx, _with_hook(run, hook))
        ui.info(f"would put the capture hook in {hook} (removed afterwards) and record into {folder}")
        return CaptureReport(folder, returncode, None, request)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create capture folder {folder}: {exc.strerror}", fix="choose a writable --out"
        ) from None
    writes.anchor(folder)
    started = time.time()
    writes.replace_json(folder / CAPTURE_FILE, _info(ctx, request, started, None))
    hook = _hook_folder()
    try:
        returncode = run_command(ctx, _with_hook(run, hook))
    finally:
        shutil.rmtree(hook, ignore_errors=True)
    writes.replace_json(folder / CAPTURE_FILE, _info(ctx, request, started, returncode))
    return CaptureReport(folder, returncode, load_capture(folder), request)


def _with_hook(run: RunRequest, hook: Path) -> RunRequest:
    return RunRequest(
        run.command, variables=run.variables, pythonpath_first=hook, output_to_stderr=run.output_to_stderr
    )
