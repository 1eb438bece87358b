"""A checkout as its step will leave it (`CheckoutFacts`), known before the step runs: read, never written.

ensure_checkout runs once with a dry-run runner (reads run, writes are only recorded), which says what
it would do; a clean checkout ends at the pin with no edits, a dirty one kept by --allow-dirty at its
current HEAD with its edits (DirtyCheckout, exit 6, stops setup here without --allow-dirty). Your own
clone (--triton-src) is taken as it stands: nothing will run on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import PlannedCommand, Runner
from bootstrap.core.settings.settings_table import Settings
from bootstrap.git.adopt import check_clone, inspect_clone
from bootstrap.git.checkouts import CheckoutAction, CheckoutReport, ensure_checkout
from bootstrap.git.history import History
from bootstrap.pipeline.setup import target_env as install

ADOPTED: CheckoutAction = "adopted"  # the checkout action of your own clone (--triton-src)


@dataclass(frozen=True)
class CheckoutFacts:
    """A checkout as its step will leave it, and what that step would run to get it there."""

    name: str
    report: CheckoutReport  # from the dry pass: action, HEAD now, local work
    commands: tuple[PlannedCommand, ...]  # what ensure_checkout would run (none: it is in place)
    edits: str = ""  # digest of the kept local changes ("" when the checkout will be clean)
    summary: str = ""  # an adopted clone: its branch and what is uncommitted, in one line

    @property
    def path(self) -> Path:
        return self.report.path

    @property
    def commit(self) -> str:
        return self.report.commit

    @property
    def kept(self) -> bool:
        """Built as it stands: local work kept (--allow-dirty), or your own clone (--triton-src)."""
        return self.report.action in ("dirty-kept", ADOPTED)

    @property
    def adopted(self) -> bool:
        """Your own clone (--triton-src): tritondev writes nothing into it."""
        return self.report.action == ADOPTED

    @property
    def adopted_line(self) -> str:
        """What setup builds when this is your clone: said before anything runs, as the plan says it."""
        return f"building your clone {self.path} as it stands (--triton-src): {self.summary}"

    @property
    def head(self) -> str:
        return self.report.head if self.kept else self.report.commit

    @property
    def dirty_files(self) -> tuple[str, ...]:
        return self.report.dirty_files if self.kept else ()


def history_of(name: str) -> History:
    """Triton's checkout has the history contributors need (log, bisect, rebase), LLVM's the pin."""
    return "blobless" if name == "triton" else "pin"


def observe_adopted(runner: Runner, root: Path) -> CheckoutFacts:
    """Your own clone as it stands: nothing will run on it, its uncommitted files are the build's edits."""

    runner = runner.logging_to(None)
    clone = inspect_clone(check_clone(root, runner), runner)
    report = CheckoutReport(clone.root, clone.head, clone.head, clone.changes, (), ADOPTED)
    return CheckoutFacts("triton", report, (), install.file_state(clone.root, clone.changes), clone.describe())


def observe_checkout(
    settings: Settings, workspace: Workspace, runner: Runner, name: str, url: str, commit: str
) -> CheckoutFacts:
    """The checkout after its step, from a dry pass of ensure_checkout (DirtyCheckout raised here)."""
    if name == "triton" and settings.triton_src is not None:
        return observe_adopted(runner, settings.triton_src)
    dry = runner.rehearsal()
    report = ensure_checkout(
        name,
        url,
        commit,
        workspace.src / name,
        dry,
        allow_dirty=settings.allow_dirty,
        full_history=settings.full_history,
        history=history_of(name),
    )
    commands = tuple(c for c in dry.history if not c.probe)
    kept = report.action == "dirty-kept"
    return CheckoutFacts(name, report, commands, install.file_state(report.path, report.dirty_files) if kept else "")
