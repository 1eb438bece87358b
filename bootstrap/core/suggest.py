"""The one "did you mean": the closest known name to a word the user typed."""

from __future__ import annotations

import difflib


def suggest(name: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
