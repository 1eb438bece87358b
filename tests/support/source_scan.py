"""Where a kind of expression appears in the tests' own Python: the scan behind the suite tests that
keep one way of doing a thing (tests/unit/suite/test_cli_launch.py, test_child_environ.py); and `parsed`,
the one parse of a source text that the tests reading the code's shape share."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Collection
from pathlib import Path


@functools.cache
def parsed(source: str) -> ast.Module:
    """`ast.parse(source)`, once per text in a test process. The unit tier's architecture tests walk every
    module of bootstrap/ and tests/ again and again: parsing each anew was about 8,600 parses, two thirds
    of tests/unit/docs' time. The tree is shared: a caller reads it and never changes it."""
    return ast.parse(source)


def places(root: Path, matches: Callable[[ast.AST], bool], skip: Collection[Path] = ()) -> list[str]:
    """`path:line` of every node under `root`'s .py files that `matches`, the test world's templates
    (copies of upstream files) and the files in `skip` left out; paths relative to root's parent."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path in skip or "templates" in path.parts:
            continue
        for node in ast.walk(parsed(path.read_text(encoding="utf-8"))):
            if matches(node):
                found.append(f"{path.relative_to(root.parent)}:{getattr(node, 'lineno', '?')}")
    return found
