"""The first pass whose output differs between two dumps of one kernel (two Triton versions, two
settings, before and after a change).

A dump holds the IR before each pass, so a pass's output is the input of the pass after it. The two
pipelines are lined up by pass argument (difflib: passes one version added or dropped do not shift
the rest); walking the pairs in order, the first pair whose inputs differ names the pass just before
it as the one whose output differs first, since its own input was still the same. Pure: it reads
Stages, it runs nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from bootstrap.ir.dumps import Stage
from bootstrap.ir.text import changed_lines, comparable, unified_diff


@dataclass(frozen=True)
class Difference:
    """verdict: same | pass (`guilty` is the first pass with another output) | frontend (the input of the
    first pass differs) | pipeline (passes only one side runs come first) | after-mlir (every MLIR pass
    agrees, the assembly does not)."""

    verdict: str
    summary: str
    guilty: tuple[Stage, Stage] | None = None  # the pass, in A and in B
    inputs: tuple[Stage, Stage] | None = None  # the pair of dumps that first differs (the guilty pass's output)
    diff: str = ""
    pipeline_differences: list[str] = field(default_factory=list)
    compared: str = ""  # what counted: locations, value names

    def to_json(self) -> dict[str, object]:
        def stage(s: Stage) -> dict[str, object]:
            return {"number": s.number, "pass": s.name, "arg": s.arg, "options": s.options, "file": s.origin}

        return {
            "verdict": self.verdict,
            "summary": self.summary,
            "pass": self.guilty[0].key if self.guilty else None,
            "pass_in": {"a": stage(self.guilty[0]), "b": stage(self.guilty[1])} if self.guilty else None,
            "first_differing": {"a": stage(self.inputs[0]), "b": stage(self.inputs[1])} if self.inputs else None,
            "pipeline_differences": self.pipeline_differences,
            "diff": self.diff,
            "compared": self.compared,
        }


def compared_stages(stages: Sequence[Stage]) -> list[Stage]:
    """What a comparison walks: the IR before each MLIR pass, then the final assembly.

    Passes' internal dumps (SoftwarePipeliner's steps) and LLVM-IR pass dumps are left out: the
    former sit inside one pass, the latter belong to LLVM, not to Triton's MLIR passes.
    """
    return [s for s in stages if s.is_pass_input or s.is_assembly]


def what_counts(keep_locations: bool, keep_names: bool) -> str:
    locations = "with locations" if keep_locations else "without locations (--keep-locations compares them)"
    names = (
        "with value names"
        if keep_names
        else "values renamed in order of appearance, so that names from line "
        "info (which --dump-ir turns off) do not count (--keep-names compares them)"
    )
    return f"compared {locations}, {names}"


def first_difference(
    a: Sequence[Stage], b: Sequence[Stage], *, keep_locations: bool = False, keep_names: bool = False
) -> Difference:
    from dataclasses import replace

    found = _first_difference(a, b, keep_locations, keep_names)
    return replace(found, compared=what_counts(keep_locations, keep_names))


def _shown_diff(a: Stage, b: Stage, renamed: tuple[str, str], keep_locations: bool) -> str:
    """The diff of the pair as written (locations aside) when it is no longer than the renamed one."""
    labels = (f"a/{a.origin}", f"b/{b.origin}")
    of_renamed = unified_diff(*renamed, *labels)
    as_written = unified_diff(
        comparable(a.body, a.kind, keep_locations), comparable(b.body, b.kind, keep_locations), *labels
    )
    return as_written if changed_lines(as_written) <= changed_lines(of_renamed) else of_renamed


def _first_difference(a: Sequence[Stage], b: Sequence[Stage], keep_locations: bool, keep_names: bool) -> Difference:
    stages_a, stages_b = compared_stages(a), compared_stages(b)
    texts_a = [comparable(s.body, s.kind, keep_locations, keep_names) for s in stages_a]
    texts_b = [comparable(s.body, s.kind, keep_locations, keep_names) for s in stages_b]
    matcher = difflib.SequenceMatcher(None, [s.key for s in stages_a], [s.key for s in stages_b], autojunk=False)
    opcodes = matcher.get_opcodes()
    differences = [_gap_text(stages_a[a0:a1], stages_b[b0:b1]) for tag, a0, a1, b0, b1 in opcodes if tag != "equal"]
    gap: str | None = None
    previous: tuple[int, int] | None = None
    for tag, a0, a1, b0, b1 in opcodes:
        if tag != "equal":
            gap = _gap_text(stages_a[a0:a1], stages_b[b0:b1])
            continue
        for i, j in zip(range(a0, a1), range(b0, b1), strict=True):
            if texts_a[i] != texts_b[j]:
                pair = (stages_a[i], stages_b[j])
                diff = _shown_diff(*pair, (texts_a[i], texts_b[j]), keep_locations)
                before = (stages_a[previous[0]], stages_b[previous[1]]) if previous else None
                verdict = _verdict(pair, before, gap)
                return Difference(
                    verdict[0],
                    verdict[1],
                    before if verdict[0] in ("pass", "after-mlir") else None,
                    pair,
                    diff,
                    differences,
                )
            previous, gap = (i, j), None
    if not stages_a or not stages_b:
        return Difference("same", "nothing to compare: no MLIR pass dump for this kernel", None, None, "", differences)
    tail = " (the pipelines differ, see below, but no IR does)" if differences else ""
    return Difference("same", f"every pass saw the same IR in both dumps{tail}", None, None, "", differences)


def _verdict(pair: tuple[Stage, Stage], before: tuple[Stage, Stage] | None, gap: str | None) -> tuple[str, str]:
    a = pair[0]
    if gap is not None:
        return "pipeline", (f"the pipelines differ ({gap}); after that, the IR before {a.label()} differs")
    if before is None:
        return "frontend", (
            f"the IR differs before the first pass ({a.label()}): it comes from the front end "
            "(the kernel's source, its arguments and constexprs, Triton's code generator)"
        )
    pass_a, pass_b = before
    name = pass_a.key
    options = _options_text(pass_a.options, pass_b.options)
    if a.is_assembly:
        return "after-mlir", (
            f"every MLIR pass gave the same IR up to {name}; the {a.kind} assembly differs: the "
            f"difference comes from {name} or the LLVM steps after the MLIR passes{options}"
        )
    return "pass", (
        f"{name} is the first pass whose output differs: its input was the same in both dumps "
        f"(a: {pass_a.origin}, b: {pass_b.origin}), its output is not{options}"
    )


def _gap_text(only_a: Sequence[Stage], only_b: Sequence[Stage]) -> str:
    def names(stages: Sequence[Stage]) -> str:
        return ", ".join(s.key for s in stages) or "nothing"

    if only_a and only_b:
        return f"a runs {names(only_a)} where b runs {names(only_b)}"
    if only_a:
        return f"only a runs {names(only_a)}"
    return f"only b runs {names(only_b)}"


def _options_text(a: str | None, b: str | None) -> str:
    """The options the pass ran with that differ between the dumps (newer MLIR prints them in the header)."""
    if a == b:
        return ""
    values_a = dict(item.partition("=")[::2] for item in (a or "").split())
    values_b = dict(item.partition("=")[::2] for item in (b or "").split())
    changed = [k for k in dict.fromkeys([*values_a, *values_b]) if values_a.get(k) != values_b.get(k)]
    shown = "; ".join(f"{k}={values_a.get(k, '(unset)')} in a, {values_b.get(k, '(unset)')} in b" for k in changed)
    return f"; it ran with other options: {shown}"
