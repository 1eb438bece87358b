"""The page's data: every kernel's passes, each IR stored once as the delta of the one before, what each pass
changed, where each line came from in the source, and for two dumps which passes line up. Pure: it gets
what bootstrap/ir/view/inputs.py read and returns plain JSON-shaped data.

A dump holds the IR *before* each pass, so what a pass did is its input against the next dump of the
same language (MLIR to MLIR): that delta is the pass's change. The last MLIR pass's output is not dumped
(the next dump is the assembly): its change is unknown, not "unchanged". For a compile folder each stage
(TTIR, TTGIR, LLIR, PTX, SASS) is one row and its change is against the stage before.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bootstrap.ir.diff import first_difference
from bootstrap.ir.dumps import Stage
from bootstrap.ir.text import comparable
from bootstrap.ir.view.deltas import Delta, delta
from bootstrap.ir.view.inputs import Track, ViewInput
from bootstrap.ir.view.locations import Located, Where, located_lines

FORMAT = 1
_LINE_BITS = 20  # a source location is (file index << 20) | line, 0 for none
MAX_LINE = (1 << _LINE_BITS) - 1


@dataclass
class SourceTable:
    """The source files the IR points to, in the order they are first seen."""

    paths: list[str]

    def id_of(self, where: Where | None) -> int:
        if where is None or not 0 < where[1] <= MAX_LINE:
            return 0
        if where[0] not in self.paths:
            self.paths.append(where[0])
        return (self.paths.index(where[0]) << _LINE_BITS) | where[1]


def stage_of(stage: Stage) -> str:
    """Which IR a dump holds: ttir | ttgir | llir (the LLVM dialect, or LLVM IR) | ptx | amdgcn | sass."""
    if stage.kind == "mlir":
        if "llvm.func " in stage.body or "llvm.func\n" in stage.body:
            return "llir"
        if '"ttg.num-warps"' in stage.body or '"triton_gpu.num-warps"' in stage.body:
            return "ttgir"
        return "ttir"
    return {"llvm": "llir", "nvptx": "ptx", "amdgcn": "amdgcn"}.get(stage.kind, stage.arg or "other")


def run_lengths(ids: Sequence[int]) -> list[int]:
    """[id, count, id, count, ...]: per line source ids, as runs (most lines of an op's region share one)."""
    out: list[int] = []
    for value in ids:
        if out and out[-2] == value:
            out[-1] += 1
        else:
            out += [value, 1]
    return out


def build_track(track: Track, sources: SourceTable, what: str) -> tuple[dict[str, Any], list[Located]]:
    """One kernel's rows for the page, and its shown lines (for a comparison)."""
    shown = [located_lines(s.body, s.kind) for s in track.stages]
    steps: list[Delta] = []
    previous: list[str] = []
    for located in shown:
        steps.append(delta(previous, located.lines))
        previous = located.lines
    rows = []
    for i, stage in enumerate(track.stages):
        effect = _effect_index(track.stages, i, what)
        change = steps[effect] if effect is not None else None
        rows.append(
            {
                "n": stage.number,
                "name": stage.name,
                "arg": stage.arg,
                "options": stage.options,
                "when": stage.when,
                "op": stage.op,
                "stage": stage_of(stage),
                "kind": stage.kind,
                "file": stage.origin,
                "failed": stage.failed,
                "nlines": len(shown[i].lines),
                "delta": steps[i].steps,
                "locs": run_lengths([sources.id_of(w) for w in shown[i].where]),
                "effect": effect,
                "added": change.added if change else None,
                "removed": change.removed if change else None,
                "changed": change.changed if change else None,
                "pass": stage.is_pass_input,
            }
        )
    changed = [r for r in rows if r["changed"]]
    counted = [r for r in rows if r["pass"]] if what == "dump" else rows
    data = {
        "name": track.kernel,
        "target": track.target,
        "resources": track.resources,
        "resources_note": track.resources_note,
        "passes": rows,
        "count": {
            "dumps": len(rows),
            "passes": len(counted),
            "changed": sum(1 for r in counted if r["changed"]),
            "unchanged": sum(1 for r in counted if r["changed"] is False),
        },
        "first_changed": rows.index(changed[0]) if changed else None,
    }
    return data, shown


def _effect_index(stages: Sequence[Stage], i: int, what: str) -> int | None:
    """The index of the dump whose delta is row i's change: the next dump of the same language for a pass
    dump, the row itself (against the stage before) for a compile stage."""
    if what == "compile":
        return i if i > 0 else None
    if i + 1 < len(stages) and stages[i + 1].kind == stages[i].kind:
        return i + 1
    return None


def build_model(
    inputs: Sequence[ViewInput],
    kernels: Sequence[str | None],
    source_texts: dict[str, list[str] | None],
    sources: SourceTable,
    title: str,
    tool: str,
    notes: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The page's data for one input (all its kernels) or two (the picked kernel of each, side by side)."""
    dumps: list[dict[str, Any]] = []
    shown_of: list[list[Located]] = []
    for label, (given, kernel) in zip("ab", zip(inputs, kernels, strict=True), strict=False):
        tracks = [t for t in given.tracks if kernel is None or t.kernel == kernel]
        built = [build_track(t, sources, given.what) for t in tracks]
        dumps.append({"label": label, "path": str(given.path), "what": given.what, "kernels": [b[0] for b in built]})
        shown_of.append(built[0][1] if built else [])
    compare = None
    if len(inputs) == 2:
        track_a = next(t for t in inputs[0].tracks if t.kernel == kernels[0])
        track_b = next(t for t in inputs[1].tracks if t.kernel == kernels[1])
        compare = compare_tracks(track_a, track_b, shown_of[0], shown_of[1])
    files = [{"path": p, "lines": source_texts.get(p), "note": (notes or {}).get(p, "")} for p in sources.paths]
    return {"format": FORMAT, "tool": tool, "title": title, "files": files, "dumps": dumps, "compare": compare}


def compare_tracks(a: Track, b: Track, shown_a: Sequence[Located], shown_b: Sequence[Located]) -> dict[str, Any]:
    """The two pipelines lined up pass by pass (by pass argument, as `ir diff` lines them up), whether each pair
    saw the same IR, the delta from a's IR to b's where not, and the pair `ir diff` names first."""
    keys_a, keys_b = [s.key for s in a.stages], [s.key for s in b.stages]
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    pairs: list[list[Any]] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            pairs += [[i, j] for i, j in zip(range(a0, a1), range(b0, b1), strict=True)]
        else:
            pairs += [[i, None] for i in range(a0, a1)] + [[None, j] for j in range(b0, b1)]
    for pair in pairs:
        i, j = pair
        if i is None or j is None:
            pair += [None, None]
            continue
        sa, sb = a.stages[i], b.stages[j]
        same = comparable(sa.body, sa.kind, False, False) == comparable(sb.body, sb.kind, False, False)
        pair += [
            same,
            None if shown_a[i].lines == shown_b[j].lines else delta(shown_a[i].lines, shown_b[j].lines).steps,
        ]
    found = first_difference(a.stages, b.stages)
    selected = None
    picked = found.guilty or found.inputs
    if picked is not None:
        index_a, index_b = a.stages.index(picked[0]), b.stages.index(picked[1])
        selected = next(
            (n for n, p in enumerate(pairs) if p[0] == index_a and p[1] == index_b),
            next((n for n, p in enumerate(pairs) if p[0] == index_a), None),
        )
    return {
        "kernel_a": a.kernel,
        "kernel_b": b.kernel,
        "pairs": pairs,
        "first": selected,
        "verdict": found.verdict,
        "summary": found.summary,
        "compared": found.compared,
        "pipeline_differences": found.pipeline_differences,
    }
