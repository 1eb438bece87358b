from __future__ import annotations


def test_help_lists_config(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("--help")
    assert result.returncode == 0
    assert "config" in result.stdout
