"""Compile targets: `cuda:90`, `cuda:sm_120`, `hip:gfx942` -> (backend, arch, warp size). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bootstrap.core.errors import UsageError

# Common targets used when the user names none (verify's ahead-of-time compile). Every Triton
# release this tool supports can compile for them, so a failure means the install is broken.
DEFAULT_TARGETS: tuple[str, ...] = ("cuda:80", "cuda:90", "hip:gfx942")

_BACKEND_ALIASES = {"cuda": "cuda", "nvidia": "cuda", "hip": "hip", "amd": "hip", "rocm": "hip"}
_FORMS = "cuda:<compute capability> (e.g. cuda:80, cuda:90, cuda:120) or hip:gfx<id> (e.g. hip:gfx942, hip:gfx1100)"


TargetBackend = Literal["cuda", "hip"]


@dataclass(frozen=True)
class Target:
    """What Triton's GPUTarget(backend, arch, warp_size) is built from."""

    backend: TargetBackend
    arch: int | str  # 90 for cuda, "gfx942" for hip
    warp_size: int

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.arch}"

    @property
    def folder(self) -> str:
        """Output folder name: no ':' so paths stay friendly to shells, make and scp."""
        return f"{self.backend}-{self.arch}"

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "backend": self.backend, "arch": self.arch, "warp_size": self.warp_size}


def _bad(text: str, why: str) -> UsageError:
    return UsageError(f"unknown target {text!r}: {why}", fix=f"write a target as {_FORMS}")


def _cuda(text: str, arch_text: str) -> Target:
    # Accept what people copy from nvidia-smi, ptxas and torch: 90, sm_90, sm90, 9.0, 90a.
    raw = arch_text.strip().lower()
    raw = raw.removeprefix("sm_").removeprefix("sm").removeprefix("compute_")
    if re.fullmatch(r"\d+\.\d", raw):
        raw = raw.replace(".", "")
    # The 'a'/'f' feature suffix is chosen by Triton itself from the arch number.
    raw = re.sub(r"(?<=\d)[af]$", "", raw)
    if not re.fullmatch(r"\d{2,3}", raw):
        raise _bad(text, "a CUDA target needs a compute capability number such as 80, 90 or 120")
    arch = int(raw)
    if arch < 30:
        raise _bad(text, f"compute capability {arch} does not exist")
    return Target("cuda", arch, 32)


def _hip(text: str, arch_text: str) -> Target:
    raw = arch_text.strip().lower()
    # Feature flags (gfx90a:xnack+) are not part of the target Triton takes.
    raw = raw.split(":", 1)[0]
    if not re.fullmatch(r"gfx[0-9a-f]{3,4}", raw):
        raise _bad(text, "a HIP target needs a gfx architecture name such as gfx90a, gfx942 or gfx1100")
    # CDNA/GCN (gfx8xx, gfx9xx) run 64-wide wavefronts; RDNA (gfx10xx and later) is 32-wide in Triton.
    warp_size = 64 if len(raw) == 6 else 32
    return Target("hip", raw, warp_size)


def parse_target(text: str) -> Target:
    """`cuda:90` -> Target("cuda", 90, 32); `hip:gfx942` -> Target("hip", "gfx942", 64). UsageError otherwise."""
    stripped = text.strip()
    if not stripped:
        raise _bad(text, "it is empty")
    backend_text, sep, arch_text = stripped.partition(":")
    if not sep:
        # A bare architecture is unambiguous: sm_90 is NVIDIA, gfx942 is AMD.
        lowered = stripped.lower()
        if lowered.startswith("gfx"):
            return _hip(text, lowered)
        if lowered.startswith("sm"):
            return _cuda(text, lowered)
        raise _bad(text, "it names no backend")
    backend = _BACKEND_ALIASES.get(backend_text.strip().lower())
    if backend is None:
        raise _bad(text, f"backend {backend_text!r} is not one of cuda, hip")
    return _cuda(text, arch_text) if backend == "cuda" else _hip(text, arch_text)


def parse_targets(texts: list[str] | tuple[str, ...]) -> list[Target]:
    """Parse and de-duplicate (keeping the first spelling's order)."""
    seen: dict[str, Target] = {}
    for text in texts:
        target = parse_target(text)
        seen.setdefault(target.label, target)
    return list(seen.values())
