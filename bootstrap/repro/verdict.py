"""What a repro.py answered (`python repro.py --json`), checked, and the one line that says it. Pure.

repro.py prints one JSON document as its last line of stdout (bootstrap/core/target/scripts/
tritondev_repro_runner.py); a repro killed by a signal or one that printed no document is judged from its
exit status alone, as `git bisect run` would judge it.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any

from bootstrap.core.fsutil import parse_json

EXIT_GOOD, EXIT_BAD, EXIT_CANNOT = 0, 1, 125


@dataclass(frozen=True)
class Verdict:
    reproduces: bool | None  # None: the repro could not run here
    exit_code: int
    summary: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "reproduces": self.reproduces,
            "exit_code": self.exit_code,
            "summary": self.summary,
            "findings": self.findings,
            "notes": self.notes,
            **self.facts,
        }


def _from_status(returncode: int, tail: str) -> Verdict:
    if returncode < 0 or returncode >= 128:
        number = -returncode if returncode < 0 else returncode - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return Verdict(True, returncode, f"reproduces: yes (the process died of {name})")
    if returncode == EXIT_CANNOT:
        return Verdict(None, returncode, f"cannot run here: {tail or 'exit 125'}")
    if returncode == EXIT_GOOD:
        return Verdict(False, returncode, "reproduces: no (exit 0)")
    return Verdict(True, returncode, f"reproduces: yes (exit {returncode}{': ' + tail if tail else ''})")


def parse_verdict(returncode: int, stdout: str, stderr: str) -> Verdict:
    """The repro's own document when its last line of stdout is one, else the exit status's meaning."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    document: Any = None
    if lines:
        try:
            document = parse_json(lines[-1])
        except ValueError:
            document = None
    tail = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")[:300]
    if not isinstance(document, dict) or returncode not in (EXIT_GOOD, EXIT_BAD, EXIT_CANNOT):
        return _from_status(returncode, tail)
    reproduces = document.get("reproduces")
    expected = {EXIT_GOOD: False, EXIT_BAD: True, EXIT_CANNOT: None}[returncode]
    summary = document.get("summary")
    if reproduces is not expected or not isinstance(summary, str):
        return _from_status(returncode, tail)
    findings = [f for f in document.get("findings", []) if isinstance(f, dict)][:50]
    notes = [str(n)[:500] for n in document.get("notes", []) if isinstance(n, str)][:20]
    facts = {
        k: document[k]
        for k in ("kernel", "path", "triton", "torch", "device", "seconds", "target")
        if isinstance(document.get(k), (str, int, float))
    }
    return Verdict(reproduces, returncode, summary[:2000], findings, notes, facts)
