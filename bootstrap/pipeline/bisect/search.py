"""The bisect search: which commit to test next, and when the first bad commit is known. Pure.

The range is a first-parent list of commits, oldest first: the parent of the first one is --good,
the last one is --bad (both trusted, as `git bisect` trusts them). Every commit tested has a
verdict: good, bad or skip. The first bad commit lies after the newest good commit below the
oldest bad one; the next commit to test is the untested, unskipped one nearest the middle of
what is left. When only skipped commits are left between the two, the first bad commit is one of
them or the bad one after them, and the search says so instead of guessing.

Kept apart from git and from builds so that the search itself is a function of two values (the
list and the verdicts), unit-tested over every placement of the regression and the skips.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum


class Verdict(str, Enum):
    GOOD = "good"
    BAD = "bad"
    SKIP = "skip"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SearchState:
    next: str | None  # the commit to test next; None when the search is over
    candidates: tuple[str, ...]  # the commits the first bad one can still be (oldest first)
    steps_left: int  # about how many more commits must be tested

    @property
    def done(self) -> bool:
        return self.next is None

    @property
    def first_bad(self) -> str | None:
        """The first bad commit, once it is the only candidate."""
        return self.candidates[0] if self.done and len(self.candidates) == 1 else None


def search(commits: Sequence[str], verdicts: Mapping[str, Verdict]) -> SearchState:
    """Where the search stands after `verdicts` on `commits` (oldest first, the last one bad)."""
    if not commits:
        raise ValueError("an empty range has no first bad commit")
    last = len(commits) - 1
    bad = min((i for i, c in enumerate(commits) if verdicts.get(c) == Verdict.BAD), default=last)
    # A good verdict above the first bad one contradicts it (the regression came and went): the
    # oldest bad commit wins, as in `git bisect`, where a later good commit is never looked at again.
    good = max((i for i, c in enumerate(commits[:bad]) if verdicts.get(c) == Verdict.GOOD), default=-1)
    candidates = tuple(commits[good + 1 : bad + 1])
    untested = [i for i in range(good + 1, bad) if commits[i] not in verdicts]
    if not untested:
        return SearchState(None, candidates, 0)
    middle = (good + bad) / 2
    chosen = min(untested, key=lambda i: (abs(i - middle), i))
    return SearchState(commits[chosen], candidates, steps_estimate(len(untested)))


def steps_estimate(untested: int) -> int:
    """About how many tests find the first bad commit among `untested` commits before a bad one."""
    return math.ceil(math.log2(untested + 1)) if untested > 0 else 0
