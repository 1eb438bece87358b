"""The workspace's state files: each named once, each inside state/, each one docs/safety.md accounts for."""

from __future__ import annotations

from pathlib import Path

from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.settings import remembered
from bootstrap.pipeline.bisect.journal import journal_path
from bootstrap.pipeline.built.records import Records
from bootstrap.pipeline.built.state import state_path

REPO = Path(__file__).resolve().parents[4]


def _every_file(files: StateFiles) -> dict[str, Path]:
    paths = {name: getattr(files, name) for name, value in vars(StateFiles).items() if isinstance(value, property)}
    paths["step"] = files.step("triton-install")
    return paths


def test_every_state_file_is_in_the_state_folder_under_a_name_of_its_own(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    files = StateFiles(workspace.state)
    paths = _every_file(files)
    assert len(paths) >= 11
    assert all(p.parent in (workspace.state, files.steps) for p in paths.values()), paths
    assert len(set(paths.values())) == len(paths), "two state files share a name"
    assert workspace.lock_path.parent == workspace.state and workspace.lock_path not in paths.values()


def test_the_owners_of_state_files_ask_for_their_paths(tmp_path: Path) -> None:
    state = Workspace(tmp_path).state
    files = StateFiles(state)
    assert remembered.path_in(tmp_path) == files.settings
    assert state_path(state) == files.setup
    assert journal_path(state) == files.bisect_journal
    assert Records(state).path("verify") == files.step("verify")


def test_docs_safety_accounts_for_every_state_file() -> None:
    """docs/safety.md's table of what tritondev writes names each file of the state folder."""
    safety = (REPO / "docs" / "safety.md").read_text(encoding="utf-8")
    files = StateFiles(Path("state"))
    missing = [
        str(p)
        for name, p in _every_file(files).items()
        if name not in ("steps", "step") and f"`{p.as_posix()}" not in safety
    ]
    assert "`state/steps/*.json`" in safety
    assert missing == [], f"docs/safety.md does not name {missing}"
