"""Every command's --help: flags shown as flags, and text as written (no markup eaten, no stray spaces)."""

from __future__ import annotations

import re

import pytest

from bootstrap import cli
from tests.unit.commands.test_commands import COMMANDS

# A space before punctuation is what is left when rich takes "[...]" in a help text for markup.
STRAY_SPACE = re.compile(r"\S ([.,;:)])(?=\s|$)")


def help_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        cli.main([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", [60, 80, 200])
@pytest.mark.parametrize(
    "path",
    [(), ("cache",), ("docker",), ("config",), *COMMANDS],
    ids=["tritondev", "cache", "docker", "config", *(" ".join(p) for p in COMMANDS)],
)
def test_help_text(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, path: tuple[str, ...], columns: int
) -> None:
    """At any width: a narrow terminal wraps the text, and must not leave a space before punctuation."""
    monkeypatch.setenv("COLUMNS", str(columns))
    text = help_text(capsys, *path)
    assert "Usage: tritondev" in text
    for line in text.splitlines():
        assert "<bool>" not in line, line  # every flag shows as a flag, -h/--help too
        assert not STRAY_SPACE.search(line.strip("│ ")), line
    assert any(line.split()[1:3] == ["--help", "-h"] for line in text.splitlines() if len(line.split()) > 2)


def test_version_is_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    line = next(line for line in help_text(capsys).splitlines() if "--version" in line)
    assert "<bool>" not in line and "Show the version and exit." in line
