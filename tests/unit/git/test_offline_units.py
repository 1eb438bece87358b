"""Telling a name that does not resolve from other network failures, and a workspace that cannot be made,
without a network or a process."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import requests

from bootstrap.core.errors import ConfigError
from bootstrap.core.io.workspace import Workspace
from bootstrap.git.rawfiles import is_name_not_resolved


def _chained(inner: BaseException) -> requests.exceptions.ConnectionError:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise requests.exceptions.ConnectionError("HTTPSConnectionPool: Max retries exceeded") from exc
    except requests.exceptions.ConnectionError as outer:
        return outer


def test_a_gaierror_anywhere_in_the_chain_is_a_name_not_resolved() -> None:
    assert is_name_not_resolved(_chained(socket.gaierror(-2, "Name or service not known")))
    assert is_name_not_resolved(
        requests.exceptions.ConnectionError(
            "Failed to resolve 'raw.githubusercontent.com' ([Errno -3] Temporary failure in name resolution)"
        )
    )
    assert not is_name_not_resolved(_chained(ConnectionRefusedError(111, "Connection refused")))
    assert not is_name_not_resolved(requests.exceptions.ReadTimeout("read timed out"))


def test_a_loop_in_the_chain_ends() -> None:
    first, second = ValueError("a"), ValueError("b")
    first.__context__, second.__context__ = second, first
    assert not is_name_not_resolved(first)


def test_a_workspace_under_a_file_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError) as info:
        Workspace(blocker / "ws").check_creatable()
    assert info.value.message == f"cannot create workspace folder {blocker / 'ws'}: Not a directory"
    Workspace(tmp_path / "new" / "ws").check_creatable()  # creatable: nothing said, nothing made
    assert not (tmp_path / "new").exists()
