"""The README stays true: every guarantee names tests that exist, and the documented commands exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
README = (REPO / "README.md").read_text()


def guarantees_section() -> str:
    start = README.index("## Guarantees")
    return README[start : README.index("### Exit codes", start)]


def test_every_guarantee_names_a_test() -> None:
    rows = [line for line in guarantees_section().splitlines() if line.startswith("| **")]
    assert len(rows) >= 10
    for row in rows:
        assert "tests/" in row and "::" in row, row[:80]


def test_every_named_test_exists() -> None:
    refs = re.findall(r"`(tests/[\w/]+\.py)::(\w+)", guarantees_section())
    assert refs
    for path, name in refs:
        source = (REPO / path).read_text()
        assert re.search(rf"^(async )?def {name}\b", source, re.MULTILINE), f"{path}::{name} is gone"


def test_the_launchers_promise_names_its_tests() -> None:
    """The launcher deletes folders (a stale venv it made): its promise, that a folder of the user's named by
    TRITONDEV_TOOL_VENV is never one of them, is a guarantee row held by the launcher's own tests."""
    rows = [
        line for line in guarantees_section().splitlines() if line.startswith("| **") and "TRITONDEV_TOOL_VENV" in line
    ]
    assert rows, "no guarantee row for the launcher (TRITONDEV_TOOL_VENV)"
    named = re.findall(r"`tests/integration/core/test_launcher\.py::(\w+)", rows[0])
    assert "test_a_folder_of_the_users_is_never_deleted" in named, rows[0][:200]
