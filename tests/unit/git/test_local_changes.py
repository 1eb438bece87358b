"""What a checkout's git config may change in the check for local changes (pure parts)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.git.local_changes import StatusConfig, _status_argv, parse_config_z


def record(scope: str, key: str, value: str) -> str:
    return f"{scope}\0{key}\n{value}\0"


def test_a_hook_from_the_checkouts_own_config_is_never_run() -> None:
    for scope in ("local", "worktree"):
        config = parse_config_z(record(scope, "core.fsmonitor", "/tmp/evil-hook"))
        assert not config.fsmonitor_allowed
        assert config.git_options() == ["-c", "core.fsmonitor=false"]


def test_the_users_own_hook_and_a_boolean_anywhere_are_honoured() -> None:
    assert parse_config_z(record("global", "core.fsmonitor", "/usr/bin/watchman-hook")).fsmonitor_allowed
    assert parse_config_z(record("command", "core.fsmonitor", "/x")).fsmonitor_allowed
    for value in ("true", "false", "TRUE", "0"):
        assert parse_config_z(record("local", "core.fsmonitor", value)).fsmonitor_allowed
    assert StatusConfig(fsmonitor_allowed=True).git_options() == []


def test_the_last_value_wins_as_in_git() -> None:
    out = record("global", "core.fsmonitor", "/usr/bin/hook") + record("local", "core.fsmonitor", "/repo/hook")
    assert not parse_config_z(out).fsmonitor_allowed
    out = record("local", "core.fsmonitor", "/repo/hook") + record("global", "core.fsmonitor", "/usr/bin/hook")
    assert parse_config_z(out).fsmonitor_allowed


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
def test_any_config_output_gives_a_config_and_no_hook_without_a_trusted_scope(output: str) -> None:
    config = parse_config_z(output)
    assert config.untracked in ("all", "normal")
    if "global" not in output and "command" not in output and "system" not in output:
        fields = output.split("\0")
        hooks = [entry for entry in fields[1::2] if entry.lower().startswith("core.fsmonitor\n")]
        if hooks and hooks[-1].partition("\n")[2].strip().lower() not in {"true", "false", "yes", "no", "on", "off",
                                                                          "1", "0", ""}:
            assert not config.fsmonitor_allowed
