from __future__ import annotations

from tests.conftest import Cli


def test_help_lists_config(cli: Cli) -> None:
    result = cli("--help")
    assert result.returncode == 0
    assert "config" in result.stdout
