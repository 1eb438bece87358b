"""Every test module is collected: no folder holding tests matches a pattern pytest skips.

pytest's default `norecursedirs` skips folders named build, dist or venv (among others), silently:
tests/integration/build was once never run. The suite's own list is checked against every folder
that holds a test module.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[3]
# Folders pytest must not collect, each for a reason (tests/conftest.py's collect_ignore).
NOT_COLLECTED = ("tests/world/templates", "tests/perf/scale/templates")


def test_no_folder_with_tests_is_skipped_by_norecursedirs() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    patterns = options.get("norecursedirs")
    assert patterns is not None, "without norecursedirs pytest skips folders named build, dist, venv"
    skipped = []
    for module in (REPO / "tests").rglob("test_*.py"):
        rel = module.relative_to(REPO).as_posix()
        if rel.startswith(NOT_COLLECTED):
            continue
        for folder in module.relative_to(REPO / "tests").parent.parts:
            if any(fnmatch.fnmatch(folder, p) for p in patterns):
                skipped.append(rel)
    assert skipped == []
    assert (REPO / "tests/integration/build/test_setup_e2e.py").is_file()  # the folder the default skipped
