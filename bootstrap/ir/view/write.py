"""`tritondev ir view PATH [PATH_B]`: read the dump(s), build the page's data, write the one HTML file.

It writes exactly one file, `--out` (default: `ir-view.html` in the dump or compile folder, or
`<file>.html` beside a raw dump file; for two dumps `ir-view-vs-<B>.html`), through
bootstrap/core/io/writes.py: a link, a folder or a FIFO at that name is refused (exit 2), never followed.
Nothing else is written, and nothing is run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap import __version__
from bootstrap.core import ui
from bootstrap.core.io import writes
from bootstrap.ir.split import safe_name
from bootstrap.ir.view.inputs import ViewInput, load_input, pick_kernels, read_sources
from bootstrap.ir.view.model import SourceTable, build_model
from bootstrap.ir.view.opener import find_opener
from bootstrap.ir.view.opener import open_page as start_opener
from bootstrap.ir.view.page import render_page

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

PAGE_NAME = "ir-view.html"


@dataclass(frozen=True)
class KernelShown:
    """One kernel of a dump as the page shows it: its passes counted, the first that changed the IR."""

    name: str | None
    target: str | None
    dumps: int
    passes: int
    changed: int
    unchanged: int
    first_changed: str | None  # the pass's argument (or name)
    resources: dict[str, int | None] | None  # a compile folder's resource summary (kernels/usage.py)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "target": self.target,
            "dumps": self.dumps,
            "passes": self.passes,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "first_changed": self.first_changed,
            "resources": self.resources,
        }


@dataclass(frozen=True)
class DumpShown:
    path: Path
    what: str  # "dump" or "compile"
    kernels: tuple[KernelShown, ...]

    def to_json(self) -> dict[str, object]:
        return {"path": str(self.path), "what": self.what, "kernels": [k.to_json() for k in self.kernels]}


@dataclass(frozen=True)
class ComparisonShown:
    """Two dumps side by side: `ir diff`'s verdict, how many pairs of passes, how many differ, which first."""

    verdict: str
    summary: str
    pairs: int
    differ: int
    first: int | None  # the pair selected on the page

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "summary": self.summary,
            "pairs": self.pairs,
            "differ": self.differ,
            "first": self.first,
        }


@dataclass(frozen=True)
class ViewResult:
    out: Path
    bytes: int
    dumps: tuple[DumpShown, ...]
    sources: tuple[tuple[str, bool], ...]  # each source file the IR names, and whether it was found
    compare: ComparisonShown | None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "path": str(self.out),
            "bytes": self.bytes,
            "dumps": [d.to_json() for d in self.dumps],
            "sources": [{"path": path, "found": found} for path, found in self.sources],
            "compare": self.compare.to_json() if self.compare is not None else None,
            "notes": self.notes,
        }


def _shown(inputs: list[ViewInput], model: dict[str, Any]) -> tuple[tuple[DumpShown, ...], ComparisonShown | None]:
    """What the result says of the page's model (built here, so its shape is known)."""
    dumps = tuple(
        DumpShown(
            given.path,
            given.what,
            tuple(
                KernelShown(
                    k["name"],
                    k["target"],
                    first_changed=_row_name(k, k["first_changed"]),
                    resources=k["resources"],
                    **k["count"],
                )
                for k in data["kernels"]
            ),
        )
        for given, data in zip(inputs, model["dumps"], strict=True)
    )
    compare = model["compare"]
    if compare is None:
        return dumps, None
    return dumps, ComparisonShown(
        compare["verdict"],
        compare["summary"],
        len(compare["pairs"]),
        sum(1 for p in compare["pairs"] if p[2] is False),
        compare["first"],
    )


def _row_name(kernel: dict[str, Any], index: int | None) -> str | None:
    if index is None:
        return None
    row = kernel["passes"][index]
    return str(row["arg"] or row["name"])


def default_out(a: Path, b: Path | None) -> Path:
    """Where the page goes without --out: beside what it shows (see the module's docstring)."""
    name = PAGE_NAME if b is None else f"ir-view-vs-{safe_name(b.resolve().name)}.html"
    if a.is_dir():
        return a / name
    return a.with_name(f"{a.name}.html" if b is None else f"{a.name}-{name}")


def write_view(a: Path, b: Path | None, kernel: str | None, out: Path | None) -> ViewResult:
    inputs = [load_input(a)] + ([load_input(b)] if b is not None else [])
    picked_a, picked_b = pick_kernels(inputs[0], inputs[1] if b is not None else None, kernel)
    kernels: list[str | None] = [kernel if b is None else picked_a] + ([picked_b] if b is not None else [])
    table = SourceTable([])
    shown = picked_a if b is not None or kernel is not None else ", ".join(inputs[0].kernels())
    title = f"{shown}: {a}" + (f" vs {b}" if b is not None else "")
    model = build_model(inputs, kernels, {}, table, title, f"tritondev {__version__}")
    bases = [Path.cwd(), *(p if p.is_dir() else p.parent for p in ([a, b] if b else [a]))]
    texts, notes = read_sources(list(table.paths), bases)
    for entry in model["files"]:
        entry["lines"], entry["note"] = texts.get(entry["path"]), notes.get(entry["path"], "")
    target = out if out is not None else default_out(a, b)
    page = render_page(model)
    writes.replace_text(target, page, verbatim=True)
    missing = [p for p, lines in texts.items() if lines is None]
    said = [f"source not shown: {p} ({notes.get(p, 'not here')})" for p in missing[:3]]
    if not table.paths:
        said.append(
            "the IR names no source lines (run --dump-ir turns line info off: "
            "TRITON_DISABLE_LINE_INFO=0 tritondev run --dump-ir ... keeps it)"
        )
    dumps, compare = _shown(inputs, model)
    sources = tuple((f["path"], f["lines"] is not None) for f in model["files"])
    return ViewResult(target, os.path.getsize(target), dumps, sources, compare, said)


@dataclass(frozen=True)
class ViewPage:
    """The page written, and (with --open) whether the desktop's browser took it; None: not asked."""

    result: ViewResult
    opened: bool | None

    def to_json(self) -> dict[str, object]:
        return {**self.result.to_json(), "opened": self.opened}


def open_view(
    ctx: AppContext, a: Path, b: Path | None, kernel: str | None, out: Path | None, *, open_page: bool
) -> ViewPage:
    """`ir view`: the page written, then opened with the desktop's browser when asked and there is one
    (where there is none, or it fails, a warning says where the page is)."""
    result = write_view(a, b, kernel, out)
    return ViewPage(result, _open(ctx, result.out) if open_page else None)


def _open(ctx: AppContext, page: Path) -> bool:
    opener = find_opener(os.environ, ctx.runner.which)
    if isinstance(opener, str):
        ui.warn(f"not opened: {opener}; open {page} in a browser")
        return False
    status = start_opener(ctx.runner, opener, page)
    if status != 0:
        ui.warn(f"{opener.argv[0]} ({opener.why}) exited with status {status}; open {page} in a browser")
    return status == 0
