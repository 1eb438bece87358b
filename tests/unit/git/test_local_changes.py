"""What a checkout's git config may change in the check for local changes (pure parts)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.git.local_changes import StatusConfig, _status_argv, parse_config_z


def record(scope: str, key: str, value: str) -> str:
    return f"{scope}\0{key}\n{value}\0"


def test_the_untracked_mode_follows_the_user_but_never_hides_untracked_files() -> None:
    assert parse_config_z("").untracked == "normal"
    assert parse_config_z(record("global", "status.showUntrackedFiles", "all")).untracked == "all"
    assert parse_config_z(record("local", "status.showuntrackedfiles", "ALL")).untracked == "all"
    for hidden in ("no", "false", "normal", "junk"):
        assert parse_config_z(record("local", "status.showUntrackedFiles", hidden)).untracked == "normal"


def test_the_check_never_writes_and_prime_writes_the_cache() -> None:
    read = _status_argv(Path("/ws/src/x"), StatusConfig(), write=False)
    assert "--no-optional-locks" in read and "core.untrackedCache=true" not in read
    assert "--untracked-files=normal" in read and "--ignore-submodules=none" in read
    write = _status_argv(Path("/ws/src/x"), StatusConfig(untracked="all"), write=True)
    assert "--no-optional-locks" not in write and "core.untrackedCache=true" in write
    assert "--untracked-files=all" in write


@given(st.text())
def test_any_config_output_gives_a_config(output: str) -> None:
    assert parse_config_z(output).untracked in ("all", "normal")
