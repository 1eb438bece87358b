"""parse_target: the forms people write, the warp size Triton needs, and errors that say what is valid."""

from __future__ import annotations

import pytest

from bootstrap.core.errors import ExitCode, UsageError
from bootstrap.kernels.targets import DEFAULT_TARGETS, Target, parse_target, parse_targets


@pytest.mark.parametrize(
    ("text", "backend", "arch", "warp"),
    [
        ("cuda:90", "cuda", 90, 32),
        ("cuda:sm_120", "cuda", 120, 32),
        ("cuda:121a", "cuda", 121, 32),
        ("CUDA:8.0", "cuda", 80, 32),
        ("nvidia:75", "cuda", 75, 32),
        ("sm_90", "cuda", 90, 32),
        ("hip:gfx942", "hip", "gfx942", 64),
        ("hip:gfx90a", "hip", "gfx90a", 64),
        ("amd:gfx90a:xnack+", "hip", "gfx90a", 64),
        ("rocm:gfx1100", "hip", "gfx1100", 32),
        ("gfx1201", "hip", "gfx1201", 32),
    ],
)
def test_forms(text: str, backend: str, arch: int | str, warp: int) -> None:
    target = parse_target(text)
    assert (target.backend, target.arch, target.warp_size) == (backend, arch, warp)
    assert target.label == f"{backend}:{arch}"
    assert ":" not in target.folder


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("cuda", "names no backend"),
        ("metal:3", "not one of cuda, hip"),
        ("cuda:gfx942", "compute capability"),
        ("cuda:9", "compute capability"),
        ("hip:942", "gfx"),
        ("hip:sm_90", "gfx"),
    ],
)
def test_bad_targets_are_usage_errors(text: str, says: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_target(text)
    assert info.value.exit_code == ExitCode.USAGE
    assert says in info.value.message
    assert info.value.fix is not None and "cuda:90" in info.value.fix and "hip:gfx942" in info.value.fix


def test_parse_targets_dedupes_in_order() -> None:
    assert [t.label for t in parse_targets(["hip:gfx942", "cuda:90", "sm_90", "amd:gfx942"])] == [
        "hip:gfx942",
        "cuda:90",
    ]


def test_defaults_cover_nvidia_and_amd() -> None:
    backends = {parse_target(t).backend for t in DEFAULT_TARGETS}
    assert backends == {"cuda", "hip"}
    assert Target("cuda", 90, 32).to_json()["label"] == "cuda:90"
