"""How `./shell/test` spreads the integration tier over pytest-xdist workers: whole test files, the
slowest first, files that share a machine-wide resource together.

- A test file is the unit of work: all its tests run in one worker, in order, so module-scoped
  fixtures are made once and tests that build on each other's workspace stay together.
- `pytestmark = pytest.mark.xdist_group("NAME")` in several files puts them in one unit (one worker,
  one after the other): for files that use something only one process at a time may use.
- Units start slowest first (longest processing time first, the classic schedule that ends with
  the workers finishing close together), from tests/file_durations.json: seconds per file, measured
  (`python -m tests.support.parallel JUNIT_XML > tests/file_durations.json` rewrites it from a run
  with `--junitxml`). A file it does not list counts as NEW_FILE_SECONDS.

Used through `--dist loadgroup` (shell/test passes it): tests/conftest.py's pytest_xdist_make_scheduler
answers with `FileScheduling`, and pytest_collection_modifyitems puts the files in that order.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from xdist.scheduler import LoadScopeScheduling

REPO = Path(__file__).resolve().parents[2]
DURATIONS = REPO / "tests" / "file_durations.json"
NEW_FILE_SECONDS = 60.0


class FileScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist is untyped
    """xdist's scope scheduling with a test file as the scope, or the file's xdist_group where it has one
    (xdist appends `@NAME` to the test ids of a group); units in collection order."""

    def __init__(self, config: Any, log: Any = None) -> None:
        config.option.loadscopereorder = False  # keep the slowest-first order of the collection
        super().__init__(config, log)

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.rfind("@") > nodeid.rfind("]"):
            return nodeid.split("@")[-1]
        return nodeid.split("::", 1)[0]


def file_seconds() -> dict[str, float]:
    if not DURATIONS.is_file():
        return {}
    data: dict[str, float] = json.loads(DURATIONS.read_text())
    return data


def slowest_first(paths: list[str], groups: dict[str, str]) -> dict[str, int]:
    """Rank of each file (0 runs first): units by their summed seconds, longest first; the files of one
    group keep their collection order, together."""
    seconds = file_seconds()
    unit_of = {path: groups.get(path, path) for path in paths}
    weight: dict[str, float] = defaultdict(float)
    for path in paths:
        weight[unit_of[path]] += seconds.get(path, NEW_FILE_SECONDS)
    first_seen = {unit: i for i, unit in reversed(list(enumerate(unit_of[p] for p in paths)))}
    units = sorted(weight, key=lambda unit: (-weight[unit], first_seen[unit]))
    rank = {unit: i for i, unit in enumerate(units)}
    return {path: rank[unit_of[path]] for path in paths}


def durations_from_junit(xml: Path) -> dict[str, float]:
    """Seconds per test file (setup, call and teardown of each test) from a `--junitxml` report."""
    totals: dict[str, float] = defaultdict(float)
    for case in ET.parse(xml).getroot().iter("testcase"):
        module = case.get("classname", "").split("@")[0]
        parts = module.split(".")
        # classname is the dotted module path, plus the class for tests in a class.
        for end in range(len(parts), 0, -1):
            candidate = "/".join(parts[:end]) + ".py"
            if (REPO / candidate).is_file():
                totals[candidate] += float(case.get("time", "0"))
                break
    return {path: round(totals[path], 1) for path in sorted(totals)}


if __name__ == "__main__":
    json.dump(durations_from_junit(Path(sys.argv[1])), sys.stdout, indent=1)
    sys.stdout.write("\n")
