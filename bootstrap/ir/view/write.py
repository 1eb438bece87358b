"""`tritondev ir view PATH [PATH_B]`: read the dump(s), build the page's data, write the one HTML file.

It writes exactly one file, `--out` (default: `ir-view.html` in the dump or compile folder, or
`<file>.html` beside a raw dump file; for two dumps `ir-view-vs-<B>.html`), through
bootstrap/core/writes.py: a link, a folder or a FIFO at that name is refused (exit 2), never followed.
Nothing else is written, and nothing is run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bootstrap import __version__
from bootstrap.core import writes
from bootstrap.ir.split import safe_name
from bootstrap.ir.view.inputs import ViewInput, load_input, pick_kernels, read_sources
from bootstrap.ir.view.model import SourceTable, build_model
from bootstrap.ir.view.page import render_page

PAGE_NAME = "ir-view.html"


@dataclass
class ViewResult:
    out: Path
    bytes: int
    inputs: list[ViewInput]
    model: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        dumps = []
        for given, data in zip(self.inputs, self.model["dumps"], strict=True):
            dumps.append({"path": str(given.path), "what": given.what, "kernels": [
                {"name": k["name"], "target": k["target"], **k["count"],
                 "first_changed": _row_name(k, k["first_changed"]), "resources": k["resources"]}
                for k in data["kernels"]]})
        compare = self.model["compare"]
        return {"path": str(self.out), "bytes": self.bytes, "dumps": dumps,
                "sources": [{"path": f["path"], "found": f["lines"] is not None} for f in self.model["files"]],
                "compare": None if compare is None else {
                    "verdict": compare["verdict"], "summary": compare["summary"], "pairs": len(compare["pairs"]),
                    "differ": sum(1 for p in compare["pairs"] if p[2] is False),
                    "first": compare["first"]},
                "notes": self.notes}


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
        said.append("the IR names no source lines (run --dump-ir turns line info off: "
                    "TRITON_DISABLE_LINE_INFO=0 tritondev run --dump-ir ... keeps it)")
    return ViewResult(target, os.path.getsize(target), inputs, model, said)
