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


def odd_interpreter(folder: Path, real: Path, answers: dict[str, str]) -> Path:
    """A target interpreter whose in-target scripts answer `answers[script name]` (valid JSON of the
    wrong shape, say) instead of running; every other use runs `real`.

    A real executable, not a mock: it stands in for a Triton, torch or JAX that prints something
    tritondev does not expect, which no installable package does on purpose.
    """
    cases = "".join(f"    *{name}) printf '%s\\n' '{answer}'; exit 0;;\n" for name, answer in answers.items())
    script = folder / "python"
    folder.mkdir(parents=True, exist_ok=True)
    script.write_text(f'#!/bin/sh\nfor arg in "$@"; do\n  case "$arg" in\n{cases}  esac\ndone\nexec {real} "$@"\n')
    script.chmod(0o755)
    return script
