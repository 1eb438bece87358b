"""Line deltas: one IR text stored as the edit of the text before it, which is also the diff the page shows.

A delta is a list of steps over the lines of the text before: an int `n` keeps its next n lines, a pair
`[n, [lines]]` drops its next n lines and puts `lines` in their place. The page stores the first text of a
pipeline whole (one step that drops nothing and inserts everything) and every later one as its delta, so
that a pass which changes three lines of a ten-thousand-line module costs three lines, and the diff of a
pass is read from the same steps: computed once, here, never in the browser.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

Step = Union[int, list[object]]  # noqa: UP007  (JSON-shaped: an int, or [dropped, [inserted lines]])


@dataclass(frozen=True)
class Delta:
    steps: list[Step]
    added: int
    removed: int

    @property
    def changed(self) -> bool:
        return self.added > 0 or self.removed > 0


def delta(before: Sequence[str], after: Sequence[str]) -> Delta:
    """The steps that turn `before` into `after`, and how many lines they add and remove."""
    steps: list[Step] = []
    added = removed = 0
    at_a = at_b = 0
    for i, j in [*matching_lines(before, after), (len(before), len(after))]:
        if i > at_a or j > at_b:
            steps.append([i - at_a, list(after[at_b:j])])
            removed += i - at_a
            added += j - at_b
        if i < len(before):
            _keep(steps, 1)
        at_a, at_b = i + 1, j + 1
    return Delta(steps, added, removed)


def matching_lines(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of equal lines a[i] == b[j], increasing in both: a patience diff.

    Lines that occur once in each side anchor the match (the longest increasing run of them), and the
    stretches between anchors are matched the same way; a stretch with no such line is matched by difflib
    when it is small, else left as one replacement. Unlike difflib alone this stays near linear on two
    modules of ten thousand lines that differ everywhere (two pipelines' LLVM dialect), where difflib
    takes minutes.
    """
    found: list[tuple[int, int]] = []
    pending = [(0, len(a), 0, len(b))]
    while pending:
        a0, a1, b0, b1 = pending.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            found.append((a0, b0))
            a0, b0 = a0 + 1, b0 + 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
            a1, b1 = a1 - 1, b1 - 1
            found.append((a1, b1))
        if a0 == a1 or b0 == b1:
            continue
        anchors = _unique_anchors(a, b, a0, a1, b0, b1)
        if not anchors:
            if (a1 - a0) * (b1 - b0) <= _SMALL:
                matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
                for block in matcher.get_matching_blocks():
                    found += [(a0 + block.a + k, b0 + block.b + k) for k in range(block.size)]
            continue
        previous = (a0 - 1, b0 - 1)
        for i, j in [*anchors, (a1, b1)]:
            if i > previous[0] + 1 and j > previous[1] + 1:
                pending.append((previous[0] + 1, i, previous[1] + 1, j))
            if i < a1:
                found.append((i, j))
            previous = (i, j)
    return sorted(found)


_SMALL = 200_000  # difflib on a stretch of at most this many line pairs (about 450 x 450): well under a second


def _unique_anchors(a: Sequence[str], b: Sequence[str], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """The longest run, increasing in both, of lines that occur exactly once in a[a0:a1] and in b[b0:b1]."""
    count_a: dict[str, int] = {}
    where_a: dict[str, int] = {}
    for i in range(a0, a1):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
        where_a[a[i]] = i
    count_b: dict[str, int] = {}
    where_b: dict[str, int] = {}
    for j in range(b0, b1):
        if count_a.get(b[j]) == 1:
            count_b[b[j]] = count_b.get(b[j], 0) + 1
            where_b[b[j]] = j
    pairs = sorted((where_a[line], where_b[line]) for line, n in count_b.items() if n == 1)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (sorted by their first item) whose second items increase."""
    tails: list[int] = []  # tails[k]: the smallest second item ending a run of length k + 1
    ends: list[int] = []  # the index in pairs of that run's last pair
    back: list[int] = []
    for index, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[k] = j
            ends[k] = index
        back.append(ends[k - 1] if k > 0 else -1)
    run: list[tuple[int, int]] = []
    at = ends[-1] if ends else -1
    while at >= 0:
        run.append(pairs[at])
        at = back[at]
    return run[::-1]


def _keep(steps: list[Step], count: int) -> None:
    if steps and isinstance(steps[-1], int):
        steps[-1] += count
    else:
        steps.append(count)


def apply(before: Sequence[str], steps: Sequence[Step]) -> list[str]:
    """`after`, from `before` and the steps of delta(before, after); ValueError when they do not fit `before`."""
    out: list[str] = []
    at = 0
    for step in steps:
        if isinstance(step, int):
            if step < 0 or at + step > len(before):
                raise ValueError("a step keeps lines the text does not have")
            out.extend(before[at : at + step])
            at += step
        else:
            dropped, inserted = step
            if (
                not isinstance(dropped, int)
                or not isinstance(inserted, list)
                or dropped < 0
                or at + dropped > len(before)
            ):
                raise ValueError("a step drops lines the text does not have")
            out.extend(str(line) for line in inserted)
            at += dropped
    if at != len(before):
        raise ValueError("the steps do not cover the whole text")
    return out
