"""Ages and sizes as the cache commands read and show them: `7d`, `500M`; `2w`, `1.5G`."""

from __future__ import annotations

import re

from bootstrap.core.errors import UsageError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_duration(text: str) -> float:
    """Seconds in `30m`, `12h`, `7d`, `2w` (also `90s`, `1.5d`). A bare number is refused: minutes or days?"""
    match = _DURATION.match(text)
    if not match:
        raise UsageError(
            f"cannot read the age '{text}'",
            fix="give a number and a unit: 30m, 12h, 7d or 2w (s, m, h, d, w)",
        )
    return float(match.group(1)) * _DURATION_UNITS[match.group(2).lower()]


def parse_size(text: str) -> int:
    """Bytes in `500M`, `5G`, `1.5G`, `200K`, `5GiB` or a plain number of bytes (units are powers of 1024)."""
    match = _SIZE.match(text)
    if not match:
        raise UsageError(
            f"cannot read the size '{text}'",
            fix="give bytes or a number with a unit: 500M, 5G, 200K (powers of 1024)",
        )
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "K", "M", "G"):
        if value < 1024 or unit == "G":
            return f"{int(value)}{unit}" if unit == "B" else f"{value:.1f}{unit}"
        value /= 1024
    return f"{value:.1f}T"  # pragma: no cover - the loop returns


def human_age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, span in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= span:
            return f"{int(seconds // span)}{unit}"
    return f"{int(seconds)}s"
