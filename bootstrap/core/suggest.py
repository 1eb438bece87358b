"""The one "did you mean": the known names closest to a word the user typed.

Each caller keeps its own cutoff (how alike a name must be) and how many names it offers; the message
form " (did you mean 'x'?)" is `did_you_mean`'s.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

DEFAULT_CUTOFF = 0.6  # difflib's own default


def close_matches(word: str, candidates: Iterable[str], *, n: int = 1, cutoff: float = DEFAULT_CUTOFF) -> list[str]:
    """Up to `n` candidates alike enough to `word`, the closest first."""
    return difflib.get_close_matches(word, list(candidates), n=n, cutoff=cutoff)


def closest(word: str, candidates: Iterable[str], *, cutoff: float = DEFAULT_CUTOFF) -> str | None:
    """The one candidate closest to `word`, or None when none is alike enough."""
    found = close_matches(word, candidates, cutoff=cutoff)
    return found[0] if found else None


def did_you_mean(word: str, candidates: Iterable[str], *, cutoff: float = DEFAULT_CUTOFF) -> str:
    """ " (did you mean 'x'?)" for the closest candidate, or "" when none is alike enough."""
    found = closest(word, candidates, cutoff=cutoff)
    return f" (did you mean '{found}'?)" if found is not None else ""
