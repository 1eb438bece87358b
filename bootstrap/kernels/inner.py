"""What the kernel scripts (bootstrap/inside/tritondev_*.py) need beyond the shared mechanism:
the "module missing" error and where NVIDIA's disassembly tools are."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bootstrap.core.errors import ToolMissing

# pip names of the modules the scripts need, for the fix line of a "missing" error.
PIP_NAMES = {"triton": "triton", "torch": "torch", "numpy": "numpy"}


def missing_module_error(python: Path, event: dict[str, Any]) -> ToolMissing:
    """'triton is not installed' with the exact pip command for this environment."""
    module = str(event.get("module") or "triton")
    package = PIP_NAMES.get(module, module)
    fix = f"{python} -m pip install {package}"
    if module == "triton":
        fix += "  (or build it from source: tritondev setup)"
    return ToolMissing(f"{event.get('message') or module + ' is not installed'} ({python})", fix=fix)


def nvidia_tool(
    name: str,
    bundled_dir: str | None,
    environ: dict[str, str] | None = None,
    which: Callable[[str], str | None] | None = None,
) -> str | None:
    """Which nvdisasm/cuobjdump to use: Triton's knob variable, Triton's bundled copy, PATH, /usr/local/cuda.

    The same order Triton itself uses for its tools (knobs.py env_nvidia_tool), then the system's.
    """
    env = dict(os.environ) if environ is None else environ
    candidates: list[str | None] = [env.get(f"TRITON_{name.upper()}_PATH")]
    if bundled_dir:
        candidates.append(os.path.join(bundled_dir, name))
    if which is not None:
        candidates.append(which(name))
    candidates.append(os.path.join(env.get("CUDA_HOME") or "/usr/local/cuda", "bin", name))
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
