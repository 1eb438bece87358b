"""Options shared by the commands (names and env vars fixed by the CLI design)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Workspace = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--workspace",
        help="Where checkouts, builds, logs and state live (env: TRITONDEV_WORKSPACE; "
        "default: nearest folder with a tritondev.toml, else ~/tritondev).",
        show_default=False,
    ),
]
Python = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--python",
        help="Target Python environment (interpreter or env folder) (env: TRITONDEV_PYTHON; "
        "default: active venv/conda env, else <workspace>/venv).",
        show_default=False,
    ),
]
# Where pins and sources come from (pins, setup).
TorchRef = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--torch-ref",
        help="PyTorch tag, branch or commit whose Triton pin is used (env: TRITONDEV_TORCH_REF; "
        "default: the installed torch's, else main).",
        show_default=False,
    ),
]
TritonCommit = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--triton-commit",
        help="Use this Triton commit (40 hex) instead of PyTorch's pin (env: TRITONDEV_TRITON_COMMIT).",
        show_default=False,
    ),
]
Backend = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--backend",
        help="nvidia or amd (amd reads triton-rocm.txt) (env: TRITONDEV_BACKEND; default: nvidia).",
        show_default=False,
    ),
]
PytorchUrl = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--pytorch-url",
        help="Where PyTorch's pin files are read: git URL, local repository, or "
        "raw+https://BASE (env: TRITONDEV_PYTORCH_URL).",
        show_default=False,
    ),
]
TritonUrl = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--triton-url", help="Triton repository (env: TRITONDEV_TRITON_URL).", show_default=False),
]
LlvmUrl = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--llvm-url",
        help="LLVM repository (env: TRITONDEV_LLVM_URL; default: the one Triton's pin names).",
        show_default=False,
    ),
]
Mirror = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--mirror",
        help="Folder of bare mirrors pytorch.git, triton.git, llvm-project.git (env: TRITONDEV_MIRROR).",
        show_default=False,
    ),
]

Json = Annotated[bool, typer.Option("--json", help="One JSON document on stdout, nothing else there.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would run; change nothing.")]
Verbose = Annotated[bool, typer.Option("-v", "--verbose", help="More detail.")]


def given(**options: object) -> dict[str, object]:
    """Only the options the user actually gave (None means 'not given'), for settings precedence."""
    return {k: v for k, v in options.items() if v is not None}
