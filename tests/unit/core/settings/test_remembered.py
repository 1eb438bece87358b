"""How a workspace was set up (core.remembered): written after setup, read back as its own settings layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError, ExitCode
from bootstrap.core.settings import remembered
from bootstrap.core.settings.settings import load_settings


def _remember(ws: Path, **settings: object) -> Path:
    path = remembered.path_in(ws)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"settings": settings}))
    return path


def test_the_layer_sits_between_the_defaults_and_the_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    path = _remember(
        ws, mirror=str(tmp_path / "mirrors"), torch_ref="v2.5.1", build_type="Debug", some_future_key="ignored"
    )
    source = f"workspace:{path}"
    s = load_settings({"workspace": str(ws)}, environ={})
    assert (s.mirror, s.torch_ref, s.build_type) == (tmp_path / "mirrors", "v2.5.1", "Debug")
    assert s.source_of("mirror") == s.source_of("torch_ref") == source
    assert s.source_of("backend") == "default"
    (ws / "tritondev.toml").write_text('build_type = "Release"\n')
    s = load_settings({"workspace": str(ws)}, environ={"TRITONDEV_TORCH_REF": "v2.6.0"})
    assert s.build_type == "Release" and s.source_of("build_type").startswith("file:")
    assert s.torch_ref == "v2.6.0" and s.source_of("torch_ref") == "env:TRITONDEV_TORCH_REF"
    assert s.mirror == tmp_path / "mirrors"


def test_a_new_choice_replaces_the_remembered_one_as_a_whole(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _remember(ws, torch_ref="v2.5.1", pytorch_url="https://example.com/pytorch.git", build_type="Debug")
    s = load_settings({"workspace": str(ws), "triton_commit": "a" * 40}, environ={})
    assert s.torch_ref is None and s.triton_commit == "a" * 40  # not a remembered ref beside a new commit
    s = load_settings({"workspace": str(ws), "mirror": str(tmp_path)}, environ={})
    assert s.source_of("pytorch_url") == "default"  # a remembered URL must not outrank --mirror given now
    assert s.torch_ref == "v2.5.1" and s.build_type == "Debug"  # other choices stay


def test_what_is_remembered(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws).mkdir()
    (ws / "tritondev.toml").write_text('llvm_build_type = "Debug"\n')
    s = load_settings(
        {"workspace": str(ws), "mirror": str(tmp_path / "m"), "jobs": 3, "allow_dirty": True, "lld": False},
        environ={"TRITONDEV_CCACHE_REMOTE": "redis://:s3cret@cache:6379", "TRITONDEV_TRITON_COMMIT": "b" * 40},
    )
    kept = remembered.to_remember(s)
    assert kept == {"mirror": str(tmp_path / "m"), "lld": False, "triton_commit": "b" * 40}
    remembered.remember(ws, s)
    assert "s3cret" not in remembered.path_in(ws).read_text()
    again = load_settings({"workspace": str(ws)}, environ={})
    assert again.mirror == tmp_path / "m" and again.lld is False and again.jobs is None
    assert again.source_of("llvm_build_type").startswith("file:")  # the file still speaks for itself


@pytest.mark.parametrize(
    "given",
    [
        {"pytorch_url": "https://user:pa'ss w0rd@git.example/pytorch.git"},
        {"llvm_url": "https://ghp_0123456789abcdefghij0123:x-oauth-basic@github.com/llvm/llvm-project.git"},
        {"triton_url": "https://TOKEN0123456789abcdefgh@github.com/triton-lang/triton.git?access_token=abc123"},
    ],
)
def test_urls_are_remembered_without_their_credentials(tmp_path: Path, given: dict[str, str]) -> None:
    ws = tmp_path / "ws"
    s = load_settings({"workspace": str(ws), **given}, environ={})
    remembered.remember(ws, s)
    text = remembered.path_in(ws).read_text()
    ((name, url),) = given.items()
    for secret in ("pa'ss w0rd", "ghp_0123456789abcdefghij0123", "TOKEN0123456789abcdefgh", "abc123"):
        assert secret not in text
    kept = json.loads(text)["settings"][name]
    assert (
        kept.startswith("https://")
        and "@" not in kept
        and kept.split("://")[1].split("?")[0] == (url.split("@", 1)[1].split("?")[0])
    )  # the repository itself is remembered


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        '{"settings": [1]}',
        "[]",
        "[" * 100_000 + "]" * 100_000,
        '{"settings": {"build_type": ' + "[" * 50_000 + "]" * 50_000 + "}}",
    ],
)
def test_a_damaged_file_is_a_config_error_that_says_how_to_go_on(tmp_path: Path, text: str) -> None:
    ws = tmp_path / "ws"
    path = remembered.path_in(ws)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings({"workspace": str(ws)}, environ={})
    assert info.value.exit_code == ExitCode.USAGE and f"remove {path}" in (info.value.fix or "")


def test_a_bad_remembered_value_names_the_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    path = _remember(ws, build_type="Fastest")
    with pytest.raises(ConfigError) as info:
        load_settings({"workspace": str(ws)}, environ={})
    assert f"workspace:{path}" in info.value.message


@pytest.mark.parametrize("kind", ["fifo", "link-to-dev-zero", "too-large"])
def test_a_remembered_file_that_is_no_settings_file_is_refused_without_reading_it(tmp_path: Path, kind: str) -> None:
    """Read by every command that loads settings: a FIFO or /dev/zero there must not hang them all."""
    import os

    ws = tmp_path / "ws"
    path = remembered.path_in(ws)
    path.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text(json.dumps({"settings": {"build_type": "Debug"}, "pad": "x" * (2 << 20)}))
    with pytest.raises(ConfigError) as info:
        load_settings({"workspace": str(ws)}, environ={})
    assert info.value.exit_code == ExitCode.USAGE and f"remove {path}" in (info.value.fix or "")
