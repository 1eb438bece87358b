"""Pure parts of `tritondev compile`: resource figures, AGPRs by arch, the compile's environment, warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.kernels import usage
from bootstrap.kernels.compile import compile_environment, environment_seen
from bootstrap.kernels.diagnostics import printed_warnings


def test_spills_are_the_stack_frame_over_four_as_triton_counts_them() -> None:
    # A matmul capped at 32 registers (the 3.9 wheel's cuobjdump: REG:32 STACK:4368 SHARED:0 LOCAL:0).
    spilling = {"registers": 32, "stack": 4368, "shared": 0}
    summary = usage.cuda_summary({"num_warps": 4, "shared": 0}, spilling, 32)
    assert (summary.registers, summary.spills, summary.local_bytes) == (32, 1092, 4368)
    assert summary.static_shared_bytes == 0 and summary.threads == 128
    assert summary.to_json()["spills"] == 1092
    assert usage.cuda_summary({}, {"registers": 30, "stack": 0, "shared": 1024}, 32).spills == 0
    assert usage.cuda_summary({}, None, 32).spills is None


@pytest.mark.parametrize(
    ("arch", "has"),
    [
        ("gfx908", True),
        ("gfx90a", True),
        ("gfx942", True),
        ("gfx950", True),
        ("gfx906", False),
        ("gfx90c", False),
        ("gfx1030", False),
        ("gfx1100", False),
        ("gfx1201", False),
    ],
)
def test_agprs_only_where_the_arch_has_them(arch: str, has: bool) -> None:
    assert usage.has_agprs(arch) is has
    summary = usage.hip_summary({"num_warps": 4}, {"vgprs": 20, "agprs": 0}, 32, arch)
    assert ("agprs" in summary.to_json()) is has


def test_the_compile_uses_a_private_triton_cache_unless_one_was_chosen(tmp_path: Path) -> None:
    env = compile_environment(tmp_path, tmp_path / "tmp", {"HOME": "/home/u"})
    private = {"TRITON_INTERPRET": None, "TMPDIR": str(tmp_path / "tmp")}
    assert env == {**private, "TRITON_CACHE_DIR": str(tmp_path / "triton-cache")}
    assert compile_environment(tmp_path, tmp_path / "tmp", {"TRITON_CACHE_DIR": "/mine"}) == private


def test_the_compile_gets_a_temporary_folder_of_its_own_whatever_tmpdir_was(tmp_path: Path) -> None:
    """Triton leaves its .ptx in the temporary folder when ptxas fails: the compile's is the one it is given."""
    for environ in ({}, {"TMPDIR": "/var/tmp/mine"}):
        assert compile_environment(tmp_path, tmp_path / "scratch", environ)["TMPDIR"] == str(tmp_path / "scratch")


def test_warnings_the_compiler_printed() -> None:
    lines = [
        "loc(...): warning: the loop is not pipelined",
        "some progress",
        "ptxas warning : Registers spilled",
        "loc(...): warning: the loop is not pipelined",
        "forewarning is not one",
    ]
    assert printed_warnings(lines) == [lines[0], lines[2]]


def test_the_cache_a_caller_gives_its_runner_is_kept_and_an_unset_one_is_not_seen(tmp_path: Path) -> None:
    """verify hands compile its cache through the runner; a runner that unsets TRITON_CACHE_DIR hides the user's."""
    given = environment_seen({"TRITON_CACHE_DIR": "/verify-cache"}, {"HOME": "/home/u"})
    assert compile_environment(tmp_path, tmp_path / "t", given) == {
        "TRITON_INTERPRET": None,
        "TMPDIR": str(tmp_path / "t"),
    }
    hidden = environment_seen({"TRITON_CACHE_DIR": None}, {"TRITON_CACHE_DIR": "/mine"})
    assert compile_environment(tmp_path, tmp_path / "t", hidden)["TRITON_CACHE_DIR"] == str(tmp_path / "triton-cache")
