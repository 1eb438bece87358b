"""The pure parts of `tritondev run` and `tritondev opt` (bootstrap.ir.capture, bootstrap.ir.reproducers,
bootstrap.ir.opt, bootstrap.commands.opt.render): the command checked before anything runs, the
reproducer folder, the dump folder's name, triton-opt's failure and the JSON document of a replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.commands.opt.render import to_json
from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.ir import capture
from bootstrap.ir.opt import OptResult
from bootstrap.ir.replay import Replay
from bootstrap.ir.reproducers import describe, reproducer_variables


def test_the_command_is_checked_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="tritondev run has no option --dump"):
        capture._checked_command(["--dump"], None)
    with pytest.raises(UsageError, match="empty first word"):
        capture._checked_command([" "], None)
    with pytest.raises(ToolMissing, match="'no-such-program-here' is not on PATH"):
        capture._checked_command(["no-such-program-here"], str(tmp_path))
    script = tmp_path / "kernel.py"
    script.write_text("print(1)\n")
    with pytest.raises(UsageError, match="is not executable") as info:
        capture._checked_command([str(script)], None)
    assert f"tritondev run -- python {script}" in (info.value.fix or "")
    with pytest.raises(UsageError, match="is a folder"):
        capture._checked_command([str(tmp_path)], None)
    with pytest.raises(ToolMissing, match="does not exist"):
        capture._checked_command([str(tmp_path / "gone")], None)
    script.chmod(0o755)
    assert capture._checked_command([str(script), "-x"], None) == [str(script), "-x"]


def test_interpret_is_read_from_the_commands_environment_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert capture._interpreted({}) is True
    assert capture._interpreted({"TRITON_INTERPRET": None}) is False  # the env file unsets it
    assert capture._interpreted({"TRITON_INTERPRET": " On "}) is True
    monkeypatch.delenv("TRITON_INTERPRET")
    assert capture._interpreted({}) is False


def test_a_fresh_dump_folder_never_reuses_one_that_exists(tmp_path: Path) -> None:
    first = capture._default_dump_dir(tmp_path)
    assert first.parent == tmp_path / "dumps"
    first.mkdir(parents=True)
    second = capture._default_dump_dir(tmp_path)
    assert second != first and second.name.startswith(first.name)


def test_reproducer_folder_variables_and_refusals(tmp_path: Path) -> None:
    folder = tmp_path / "repro"
    planned = reproducer_variables(folder, dry_run=True)
    assert not folder.exists()  # a dry run creates nothing
    assert planned == {"TRITON_REPRODUCER_PATH": str(folder.absolute() / "triton"), "TRITON_ALWAYS_COMPILE": "1"}
    assert reproducer_variables(folder, dry_run=False) == planned and folder.is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        reproducer_variables(tmp_path / "file", dry_run=False)
    assert f"tritondev opt --reproducer {folder / 'triton'}.make_ttgir.repro.mlir" in describe(folder)


def test_triton_opt_failing_is_an_error_with_the_command_to_rerun(tmp_path: Path) -> None:
    replay = Replay(tmp_path, tmp_path / "input.mlir", command=["triton-opt", "input.mlir", "--tritongpu-coalesce"])
    assert OptResult(replay, None).failure is None  # not run (a dry run)
    failed = OptResult(Replay(tmp_path, tmp_path / "input.mlir", command=["triton-opt"], returncode=3), None)
    error = failed.failure
    assert error is not None and "exit status 3" in error.message and error.fix and "re-run it by hand" in error.fix


def test_the_json_document_of_a_reproducer_replay(tmp_path: Path) -> None:
    replay = Replay(
        tmp_path, tmp_path / "triton.make_ttgir.repro.mlir", command=["triton-opt", "x"], passes=["tritongpu-coalesce"]
    )
    document = to_json(replay, None, [], dry_run=True)
    assert document["reproducer"] == str(replay.input) and document["pass"] is None
    assert document["pipeline"] == ["tritongpu-coalesce"] and document["ran"] is False
    assert document["dry_run"] is True and document["diff"] is None and document["build"] == []
