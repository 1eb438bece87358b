"""What a bisect found: the first bad commit (or the candidates left), its LLVM pins, the steps taken
and what the end put back, as `tritondev bisect` prints it and as <workspace>/logs/bisect/result.json
records it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bootstrap.git.commit_range import pin_at
from bootstrap.pipeline.bisect.checks import STEP
from bootstrap.pipeline.bisect.journal import Journal
from bootstrap.pipeline.bisect.restore import Restored, restored_of
from bootstrap.pipeline.bisect.search import SearchState


@dataclass(frozen=True)
class BisectOutcome:
    journal: Journal
    state: SearchState
    workspace: Path
    dry_run: bool = False
    clone: Path | None = None  # your clone (--triton-src), bisected in a worktree of it
    worktree: Path | None = None  # that worktree
    worktree_left: bool = False  # still on disk after the end

    @property
    def restored(self) -> Restored | None:
        """What the end put back; None while the journal says the checkouts are still moved."""
        if not self.journal.restored:
            return None
        return restored_of(self.journal, self.clone, self.worktree, self.worktree_left)

    @property
    def llvm_builds(self) -> int:
        return sum(1 for s in self.journal.steps if s.llvm_rebuilt)

    def pin(self, sha: str) -> str | None:
        r = self.journal.range
        return pin_at([c.sha for c in r.commits], r.good, r.pins, sha)

    def parent_of(self, sha: str) -> str:
        shas = [c.sha for c in self.journal.range.commits]
        index = shas.index(sha)
        return shas[index - 1] if index > 0 else self.journal.range.good

    def to_json(self) -> dict[str, object]:
        j, first = self.journal, self.state.first_bad
        found: dict[str, object] | None = None
        if first is not None:
            found = {"commit": first, "subject": j.range.subject(first)}
            if j.kind == "triton":
                found.update(llvm_commit=self.pin(first), parent_llvm_commit=self.pin(self.parent_of(first)))
        return {
            "kind": j.kind,
            "workspace": str(self.workspace),
            "dry_run": self.dry_run,
            "good": j.range.good,
            "bad": j.range.bad,
            "good_ref": j.good_ref,
            "bad_ref": j.bad_ref,
            "command": list(j.command),
            "build_failure": j.build_failure,
            "range": len(j.range.commits),
            "first_bad": found,
            "candidates": [] if found else list(self.state.candidates),
            "next": self.state.next,
            "steps": [s.to_json() for s in j.steps],
            "llvm_builds": self.llvm_builds,
            "seconds": round(sum(s.seconds for s in j.steps), 3),
            "log_dir": str(self.workspace / "logs" / STEP),
            "restored": self.restored.to_json() if self.restored is not None else None,
        }
