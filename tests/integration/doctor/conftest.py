"""Shared pieces of the doctor tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.venvs import fresh_venv


def checks_of(stdout: str) -> dict[str, dict[str, Any]]:
    """The --json report's checks by name (the document must be the only thing on stdout)."""
    data = json.loads(stdout)
    return {c["name"]: c for c in data["checks"]}


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with nothing but pip (module-scoped: tests that only read share it)."""
    return fresh_venv(tmp_path_factory.mktemp("bare") / "venv")
