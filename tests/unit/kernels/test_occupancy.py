"""An NVIDIA kernel's theoretical occupancy, worked by hand from the occupancy calculator's rules: the scarcest
of warps, CTAs, registers and shared memory decides; an arch not in the table gets no figure."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.kernels.occupancy import LIMITS, Occupancy, occupancy
from bootstrap.kernels.usage import cuda_summary


def test_each_limit_decides_where_it_is_the_scarcest() -> None:
    # 4 warps of 32 registers: 16 CTAs by warps and by registers (1024 a warp), 64 of 64 warps.
    assert occupancy(90, 32, 0, 4) == Occupancy(16, 64, 64, "warps")
    # 8 warps of 128 registers: 4096 registers a warp, 2 CTAs: 16 of 64 warps.
    assert occupancy(90, 128, 0, 8) == Occupancy(2, 16, 64, "registers")
    # 255 registers round up to 8192 a warp: one CTA of 8 warps on an A100.
    assert occupancy(80, 255, 0, 8) == Occupancy(1, 8, 64, "registers")
    # 96 KB of shared memory (+1 KB the system keeps) twice in 228 KB: 2 CTAs of 4 warps.
    assert occupancy(90, 64, 96 * 1024, 4) == Occupancy(2, 8, 64, "shared memory")
    # One warp per CTA: 32 CTAs at most, half of an H100's 64 warps.
    assert occupancy(90, 16, 0, 1) == Occupancy(32, 32, 64, "CTAs")
    # A consumer part holds 48 warps.
    assert occupancy(89, 32, 0, 4) == Occupancy(12, 48, 48, "warps")


def test_no_figure_is_guessed() -> None:
    assert occupancy(75, 32, 0, 4) is None  # not in the table
    assert occupancy(90, 32, 0, 0) is None
    assert occupancy(90, 32, 300 * 1024, 4) is None  # more shared memory than the SM has: no CTA fits


@given(
    arch=st.sampled_from(sorted(LIMITS)),
    registers=st.integers(0, 255),
    shared=st.integers(0, 256 * 1024),
    warps=st.sampled_from([1, 2, 4, 8, 16, 32]),
)
def test_what_fits_never_exceeds_the_sm(arch: int, registers: int, shared: int, warps: int) -> None:
    found = occupancy(arch, registers, shared, warps)
    if found is None:
        return
    limits = LIMITS[arch]
    assert found.warps == found.ctas * warps <= limits.max_warps and 1 <= found.ctas <= limits.max_ctas
    assert found.ctas * -(-(warps * max(registers, 1) * 32) // 256) * 256 <= 65536 or registers == 0
    assert found.ctas * (shared + 1024) <= limits.shared_bytes


def test_compile_reports_it_from_the_cubin_and_the_metadata() -> None:
    metadata = {"num_warps": 8, "num_stages": 3, "shared": 65536, "target": {"backend": "cuda", "arch": 90}}
    summary = cuda_summary(metadata, {"registers": 128, "stack": 0, "shared": 0}, 32)
    assert (summary.occupancy_warps, summary.sm_max_warps) == (16, 64)
    assert cuda_summary({**metadata, "target": {"arch": 75}}, {"registers": 128}, 32).occupancy_warps is None
    assert cuda_summary(metadata, None, 32).to_json()["occupancy_warps"] is None  # registers unknown
    # The cubin's static shared memory holds the system's 1 KB already: 2 CTAs of 113 KB + 1 KB fill 228 KB
    # exactly, and only one would fit if that KB were counted twice.
    near = {**metadata, "num_warps": 4, "shared": 113 * 1024}
    assert cuda_summary(near, {"registers": 32, "shared": 1024}, 32).occupancy_warps == 8
