"""The cache library against entries that real Triton compiles wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.kernels import cache as kc


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30m", 1800), ("12h", 43200), ("7d", 604800), ("2w", 1209600), ("90s", 90), ("1.5d", 129600), (" 7D ", 604800)],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert kc.parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["7", "", "d", "-1d", "7 days", "1y"])
def test_parse_duration_refuses(text: str) -> None:
    with pytest.raises(UsageError) as info:
        kc.parse_duration(text)
    assert info.value.exit_code == 2 and info.value.fix


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("500M", 500 * 1024**2),
        ("5G", 5 * 1024**3),
        ("1048576", 1048576),
        ("200k", 204800),
        ("5GiB", 5 * 1024**3),
        ("1.5G", int(1.5 * 1024**3)),
        ("0", 0),
    ],
)
def test_parse_size(text: str, size: int) -> None:
    assert kc.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "5Q", "G", "-5G", "five"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(UsageError):
        kc.parse_size(text)


def test_cache_dir_resolution(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert kc.cache_dir({}, home) == (home / ".triton" / "cache", "~/.triton/cache")
    assert kc.cache_dir({"TRITON_HOME": "/th"}, home)[0] == Path("/th/.triton/cache")
    assert kc.cache_dir({"TRITON_HOME": "/th", "TRITON_CACHE_DIR": "/c"}, home)[0] == Path("/c")
    assert kc.cache_dir({"TRITON_CACHE_DIR": "  "}, home)[0] == home / ".triton" / "cache"  # blank: Triton ignores it
    # The workspace env file counts only when the environment says nothing.
    assert kc.resolve_cache_dir(None, {}, {"TRITON_CACHE_DIR": "/f"}, home)[0] == Path("/f")
    assert kc.resolve_cache_dir(None, {"TRITON_HOME": "/e"}, {"TRITON_CACHE_DIR": "/f"}, home)[0] == Path(
        "/e/.triton/cache"
    )
    assert kc.resolve_cache_dir(Path("/o"), {"TRITON_CACHE_DIR": "/e"}, {}, home) == (Path("/o"), "--dir")
