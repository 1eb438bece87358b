"""The files tritondev keeps in a workspace's state/ folder, each named here and nowhere else.

Every module that reads or writes one of them asks `StateFiles` for its path instead of joining a
name onto the folder itself: the folder's contents are then listed in one place (docs/safety.md
lists what each holds), and two modules cannot come to disagree about a name. The workspace's lock
file, `state/lock`, is the workspace's own (`Workspace.lock_path`, bootstrap/core/workspace.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StateFiles:
    """The files of one workspace's state folder (`Workspace.state`); nothing here touches the disk."""

    folder: Path

    @property
    def settings(self) -> Path:
        """How the workspace was set up: the settings the next command starts from (core.remembered)."""
        return self.folder / "settings.json"

    @property
    def setup(self) -> Path:
        """What a finished `setup` leaves for `build` and the tools that use its build (pipeline.built.state)."""
        return self.folder / "setup.json"

    @property
    def steps(self) -> Path:
        """The folder of setup's step records, one file per step (pipeline.built.records)."""
        return self.folder / "steps"

    def step(self, name: str) -> Path:
        """The record of setup's step `name`."""
        return self.steps / f"{name}.json"

    @property
    def tool_versions(self) -> Path:
        """The versions of the build tools setup found, so a re-run need not ask each again (pipeline.setup.facts)."""
        return self.folder / "tools.json"

    @property
    def venv_marker(self) -> Path:
        """Present while setup creates the workspace venv: a venv it finds with it was cut short."""
        return self.folder / "venv-creating"

    @property
    def shell_values(self) -> Path:
        """The build's values as shell assignments, which env.sh reads (pipeline.setup.checkout_files)."""
        return self.folder / "triton-dev.sh"

    @property
    def llvm_auto(self) -> Path:
        """`--llvm auto`'s memory: the package host's answers and the LLVM chosen per pin (pipeline.llvm.auto)."""
        return self.folder / "llvm-auto.json"

    @property
    def purge_journal(self) -> Path:
        """What each purge removed and where it came from, for `purge --restore` (purge.journal)."""
        return self.folder / "purge-journal.json"

    @property
    def bisect_journal(self) -> Path:
        """The bisect in progress (pipeline.bisect.journal)."""
        return self.folder / "bisect.json"

    @property
    def bisect_clone(self) -> Path:
        """Present while the installed Triton is a bisect worktree's of your own clone (pipeline.bisect.worktree)."""
        return self.folder / "bisect-clone.json"

    @property
    def last_setup(self) -> Path:
        """The last setup's request and how it ended, a failed one included (pipeline.built.attempt)."""
        return self.folder / "last-setup.json"

    @property
    def bisect_builds(self) -> Path:
        """Triton's build folders a bisect parked per LLVM build, and where it started (pipeline.bisect.builds)."""
        return self.folder / "bisect-builds.json"
