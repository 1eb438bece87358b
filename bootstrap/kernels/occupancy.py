"""Theoretical occupancy of an NVIDIA kernel: how many of its warps an SM holds at once, from its registers
per thread, shared memory per CTA and warps per CTA, by the rules of CUDA's occupancy calculator.

Per compute capability, the limits are those of the CUDA C++ Programming Guide's table "Technical
Specifications per Compute Capability": resident warps and CTAs per SM, 64K 32-bit registers per SM
(allocated per warp in units of 256), usable shared memory per SM (allocated in units of 128 bytes,
with 1 KB per CTA reserved by the system from 8.0 on). A CTA fits as often as the scarcest of the four
allows. An arch not in the table gets no figure: an occupancy is a number a reader believes, so it is
never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

REGISTERS_PER_SM = 64 * 1024
REGISTER_UNIT = 256  # registers per warp are allocated in units of this many
SHARED_UNIT = 128  # bytes
RESERVED_SHARED = 1024  # bytes per CTA, kept by the system (compute capability 8.0 on)


@dataclass(frozen=True)
class SmLimits:
    max_warps: int  # resident warps per SM
    max_ctas: int  # resident CTAs per SM
    shared_bytes: int  # usable shared memory per SM


KB = 1024
LIMITS = {
    80: SmLimits(64, 32, 164 * KB),
    86: SmLimits(48, 16, 100 * KB),
    87: SmLimits(48, 16, 164 * KB),
    89: SmLimits(48, 24, 100 * KB),
    90: SmLimits(64, 32, 228 * KB),
    100: SmLimits(64, 32, 228 * KB),
    120: SmLimits(48, 32, 100 * KB),
}


@dataclass(frozen=True)
class Occupancy:
    ctas: int  # resident CTAs per SM
    warps: int  # resident warps per SM
    max_warps: int  # the most the SM holds
    limited_by: str  # "warps", "CTAs", "registers" or "shared memory"


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def occupancy(arch: int, registers: int, shared_bytes: int, num_warps: int) -> Occupancy | None:
    """Resident CTAs and warps per SM for `num_warps` warps per CTA using `registers` per thread and
    `shared_bytes` of shared memory per CTA; None for an arch not in LIMITS or a shape that cannot run."""
    limits = LIMITS.get(arch)
    if limits is None or num_warps <= 0 or registers < 0 or shared_bytes < 0:
        return None
    fits = {"warps": limits.max_warps // num_warps, "CTAs": limits.max_ctas}
    if registers:
        per_warp = _round_up(registers * 32, REGISTER_UNIT)
        fits["registers"] = REGISTERS_PER_SM // (per_warp * num_warps)
    fits["shared memory"] = limits.shared_bytes // _round_up(shared_bytes + RESERVED_SHARED, SHARED_UNIT)
    limited_by = min(fits, key=lambda name: fits[name])  # the first named wins a tie
    ctas = fits[limited_by]
    return Occupancy(ctas, ctas * num_warps, limits.max_warps, limited_by) if ctas > 0 else None
