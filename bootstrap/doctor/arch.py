"""GPU arch names: `--arch sm_121`, `sm_121a`, `121`, `cuda:121`, `12.1` all mean compute capability 12.1."""

from __future__ import annotations

import re

from bootstrap.core.errors import UsageError

_FORMS = (
    re.compile(r"^(?:sm_?|cuda:)?(?P<cc>\d{2,3})(?P<suffix>[af])?$", re.IGNORECASE),
    re.compile(r"^(?P<major>\d{1,2})\.(?P<minor>\d)$"),
)

# The oldest arch Triton targets (Volta) and a ceiling well above anything announced.
MIN_ARCH, MAX_ARCH = 70, 199


def parse_arch(text: str) -> int:
    """The compute capability as Triton writes it (90 for sm_90a, 121 for sm_121a); UsageError if bad."""
    value = text.strip()
    for form in _FORMS:
        match = form.match(value)
        if not match:
            continue
        groups = match.groupdict()
        arch = int(groups["cc"]) if groups.get("cc") else int(groups["major"]) * 10 + int(groups["minor"])
        if MIN_ARCH <= arch <= MAX_ARCH:
            return arch
        break
    raise UsageError(
        f"invalid --arch {text!r}: expected an NVIDIA arch such as sm_90, sm_90a, sm_121 or 121"
        f" (between sm_{MIN_ARCH} and sm_{MAX_ARCH})",
        fix="pass --arch sm_XY with the GPU's compute capability (nvidia-smi --query-gpu=compute_cap)",
    )


# Arch -> the first Triton release known to compile for it with the ptxas it bundles (field reports:
# sm_100/sm_120 from 3.3, sm_103 needs the 12.9 ptxas-blackwell of 3.6, sm_110/sm_121 compile without
# any variable from 3.7.1, triton#10331). Only used to name the upgrade when no ptxas on the machine
# helps; the claim itself is what the compile proof tests.
FIRST_TRITON_FOR_ARCH: tuple[tuple[int, str], ...] = (
    (90, "3.0.0"),
    (100, "3.3.0"),
    (103, "3.6.0"),
    (110, "3.7.1"),
    (120, "3.3.0"),
    (121, "3.7.1"),
)


def first_triton_for(arch: int) -> str | None:
    """The Triton release to upgrade to for `arch`; None for an arch newer than this table knows."""
    known = dict(FIRST_TRITON_FOR_ARCH)
    if arch in known:
        return known[arch]
    if arch > max(known):
        return None
    return known[max(a for a in known if a <= arch)]
