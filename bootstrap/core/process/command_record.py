"""What a command was (or would have been) and what came back: the records the runner keeps.

Pure data, no processes: --dry-run prints `PlannedCommand.render()`, --json reports `to_json()`,
and plans are compared with the history of `PlannedCommand`s a run leaves.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.redact import redact


def _shown(name: str, value: str) -> str:
    """A variable as a shell would take it; a PATH that puts folders in front of the one this process
    has is shown as `PATH=<folders>:$PATH` (the inherited PATH is some 250 characters nobody reads)."""
    inherited = os.environ.get("PATH", "")
    if name == "PATH" and inherited and value.endswith(os.pathsep + inherited) and len(value) > len(inherited) + 1:
        return f"{shlex.quote(value[: -len(inherited) - 1])}{os.pathsep}$PATH"
    return shlex.quote(value)


@dataclass(frozen=True)
class PlannedCommand:
    """A command as it was (or would have been) run: what --dry-run prints and tests compare."""

    argv: tuple[str, ...]
    cwd: str | None
    env: tuple[tuple[str, str], ...]  # only the variables this command sets on top of the environment
    step: str
    probe: bool = False  # it only read (runs under --dry-run too); not part of what a run changes

    def render(self) -> str:
        prefix = " ".join(f"{k}={_shown(k, v)}" for k, v in self.env)
        cmd = shlex.join(self.argv)
        parts = []
        if self.cwd:
            parts.append(f"cd {shlex.quote(self.cwd)} &&")
        if prefix:
            parts.append(prefix)
        parts.append(cmd)
        return redact(" ".join(parts))

    def to_json(self) -> dict[str, object]:
        return {
            "step": self.step,
            "argv": [redact(a) for a in self.argv],
            "cwd": self.cwd,
            "env": {k: redact(v) for k, v in self.env},
        }


@dataclass
class Result:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    log_path: Path | None
    dry_run: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0
