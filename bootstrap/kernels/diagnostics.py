"""What a compiler's output says: the line that names the failure, known fixes, printed warnings. Pure."""

from __future__ import annotations

import re


def headline(tail: list[str]) -> str:
    """The line of a compiler's output that says what went wrong: a fatal/error line, else the last one."""
    for line in reversed(tail):
        lowered = line.lower()
        if "fatal" in lowered or ("error:" in lowered and not lowered.startswith(("triton.", "runtimeerror"))):
            return line.strip()
    return tail[-1].strip() if tail else "no output"


def ptxas_fix(tail: list[str]) -> str | None:
    """The known fix for a ptxas that does not know the GPU (field problem 14), else None."""
    text = "\n".join(tail)
    if "is not defined for option 'gpu-name'" in text:
        return (
            "this Triton's ptxas does not know that architecture: point TRITON_PTXAS_PATH (for arch >= 100 "
            "also TRITON_PTXAS_BLACKWELL_PATH) at the ptxas of a newer CUDA, or upgrade Triton"
        )
    return None


def printed_warnings(lines: list[str]) -> list[str]:
    """Warnings the compiler printed itself (MLIR, LLVM, ptxas): lines that say "warning"."""
    found = [line.strip() for line in lines if re.search(r"\bwarning\b", line, re.IGNORECASE)]
    return list(dict.fromkeys(found))
