"""The pure parts of `tritondev bisect`: the verdict of an exit status, the LLVM pin of a commit, the
journal's round trip and its refusal of anything else, the result document."""

from __future__ import annotations

import dataclasses
import json
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootstrap.core.errors import UsageError
from bootstrap.git.commit_range import CommitRange, RangeCommit, pin_at
from bootstrap.pipeline.bisect.journal import BisectStep, Journal, Start, read_journal, write_journal
from bootstrap.pipeline.bisect.outcome import BisectOutcome
from bootstrap.pipeline.bisect.search import Verdict, search
from bootstrap.pipeline.bisect.steps import verdict_of


def sha(n: int) -> str:
    return f"{n:040x}"


def test_verdicts_follow_git_bisect_run_and_crashes_are_bad() -> None:
    assert verdict_of(0) == Verdict.GOOD
    assert verdict_of(125) == Verdict.SKIP
    assert all(verdict_of(code) == Verdict.BAD for code in (1, 2, 100, 124, 126, 127))
    for crash in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL):
        assert verdict_of(128 + crash) == Verdict.BAD
    # Anything else of 128 or more stops the bisect, as `git bisect run` does (SIGKILL: the OOM killer).
    assert verdict_of(128) is None and verdict_of(128 + signal.SIGKILL) is None and verdict_of(255) is None


def test_the_pin_of_a_commit_is_that_of_the_last_change_before_it() -> None:
    commits = [sha(i) for i in range(1, 8)]
    pins = {sha(0): "llvm-a", sha(4): "llvm-b", sha(6): None}
    assert [pin_at(commits, sha(0), pins, c) for c in commits] == [
        "llvm-a",
        "llvm-a",
        "llvm-a",
        "llvm-b",
        "llvm-b",
        None,
        None,
    ]
    assert pin_at(commits, sha(0), pins, sha(0)) == "llvm-a"


def journal(steps: tuple[BisectStep, ...] = ()) -> Journal:
    commits = tuple(RangeCommit(sha(i), f"subject {i}") for i in range(1, 17))
    return Journal(
        kind="triton",
        good_ref="main",
        bad_ref="bisect",
        range=CommitRange(sha(0), sha(16), commits, {sha(0): sha(99)}),
        command=("python", "check.py"),
        cwd="/tmp",
        build_failure="skip",
        start={
            "triton": Start(sha(0), None, ("refs/tritondev/pins/" + sha(0),)),
            "llvm-project": Start(sha(99), "main"),
        },
        steps=steps,
        restored=False,
        started=1.5,
    )


def test_the_journal_round_trips(tmp_path: Path) -> None:
    step = BisectStep(1, sha(8), "subject 8", Verdict.SKIP, 3.25, False, sha(99), None, "does not build", "/logs/01")
    written = journal((step,))
    write_journal(tmp_path, written)
    assert read_journal(tmp_path) == written
    assert read_journal(tmp_path / "elsewhere") is None
    assert written.same_request("triton", "main", "bisect", ["python", "check.py"], "skip")
    assert not written.same_request("triton", "main", "bisect", ["python", "check.py"], "bad")


def test_a_journal_without_an_llvm_checkout_round_trips(tmp_path: Path) -> None:
    """A workspace on a prebuilt LLVM (or --llvm PATH), as a contributor's clone often is: only the Triton
    checkout (or clone) has a start, and the journal still reads back, so the bisect can be resumed."""
    written = dataclasses.replace(journal(), start={"triton": Start(sha(0), "my-fix")})
    write_journal(tmp_path, written)
    assert read_journal(tmp_path) == written
    data = json.loads((tmp_path / "bisect.json").read_text())
    for start in ({}, {"llvm-project": data["start"]["triton"]}, {**data["start"], "other": data["start"]["triton"]}):
        (tmp_path / "bisect.json").write_text(json.dumps({**data, "start": start}))
        with pytest.raises(UsageError):
            read_journal(tmp_path)


@settings(max_examples=80, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    )
)
def test_anything_else_in_the_journal_file_is_refused_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, data: object
) -> None:
    folder = tmp_path_factory.mktemp("journal")
    (folder / "bisect.json").write_text(json.dumps(data))
    with pytest.raises(UsageError) as caught:
        read_journal(folder)
    assert "\n" not in caught.value.message and caught.value.fix


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_damaged_journal_is_refused(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """A real journal with one field removed or given the wrong type."""
    document = journal().to_json()
    key = data.draw(st.sampled_from(sorted(document)))
    value: object = data.draw(st.sampled_from(["deleted", None, 7, True, [], {}, "x" * 39]))
    if value == "deleted":
        del document[key]
    else:
        document[key] = value
    folder = tmp_path_factory.mktemp("journal")
    (folder / "bisect.json").write_text(json.dumps(document))
    try:
        parsed = read_journal(folder)
    except UsageError as exc:
        assert exc.fix
    else:  # no steps yet, no pin read, or a text field given other text: still a journal
        still_valid: tuple[tuple[str, object], ...] = (("steps", []), ("pins", {}), ("restored", True), ("started", 7))
        assert parsed is not None
        assert (key, value) in still_valid or (isinstance(value, str) and key in ("good_ref", "bad_ref", "cwd"))


def test_the_result_document() -> None:
    first = sha(10)
    steps = tuple(
        BisectStep(n, sha(c), f"subject {c}", v, 2.0, n == 1, sha(99), 0 if v == Verdict.GOOD else 1, "", "")
        for n, (c, v) in enumerate([(8, Verdict.GOOD), (12, Verdict.BAD), (10, Verdict.BAD), (9, Verdict.GOOD)], 1)
    )
    j = journal(steps)
    outcome = BisectOutcome(j, search([c.sha for c in j.range.commits], j.verdicts), Path("/ws"))
    data: dict[str, Any] = outcome.to_json()
    assert data["first_bad"] == {
        "commit": first,
        "subject": "subject 10",
        "llvm_commit": sha(99),
        "parent_llvm_commit": sha(99),
    }
    assert data["llvm_builds"] == 1 and data["range"] == 16 and data["candidates"] == []
    assert [s["verdict"] for s in data["steps"]] == ["good", "bad", "bad", "good"]
    assert set(data["steps"][0]) >= {"commit", "verdict", "seconds", "llvm_rebuilt"}
    assert data["restored"] is None  # the journal says the checkouts are still moved


def test_the_result_names_an_llvm_bump_at_the_first_bad_commit() -> None:
    from bootstrap.commands.bisect import _result_lines

    j = journal(
        tuple(
            BisectStep(n, sha(c), "", Verdict.BAD if c >= 10 else Verdict.GOOD, 1.0, False, None, 0, "", "")
            for n, c in enumerate((8, 12, 10, 9), 1)
        )
    )
    pins = {**j.range.pins, sha(10): sha(98)}
    j = dataclasses.replace(j, range=dataclasses.replace(j.range, pins=pins), restored=True)
    lines = _result_lines(BisectOutcome(j, search([c.sha for c in j.range.commits], j.verdicts), Path("/ws")))
    assert lines[0] == f"first bad commit: {sha(10)} subject 10"
    assert "an LLVM bump" in lines[1] and f"--good {sha(99)} --bad {sha(98)}" in lines[1]
    assert lines[-1].startswith("restored: src/triton at")


def test_the_end_of_a_bisect_in_your_clone_says_what_was_really_restored() -> None:
    """With --triton-src the clone was never moved: the end names it untouched at its HEAD, the worktree
    removed (or still there) and the clone installed again; only src/llvm-project was moved back."""
    from bootstrap.commands.bisect import _result_lines

    j = dataclasses.replace(
        journal(
            tuple(
                BisectStep(n, sha(c), "", Verdict.BAD if c >= 10 else Verdict.GOOD, 1.0, False, None, 0, "", "")
                for n, c in enumerate((8, 12, 10, 9), 1)
            )
        ),
        restored=True,
    )
    clone, worktree = Path("/home/me/triton"), Path("/ws/src/triton-bisect")
    state = search([c.sha for c in j.range.commits], j.verdicts)
    outcome = BisectOutcome(j, state, Path("/ws"), clone=clone, worktree=worktree)
    last = _result_lines(outcome)[-1]
    assert last == (
        f"restored: your clone {clone} untouched (never moved: HEAD {sha(0)[:12]} as it stands), the "
        f"worktree {worktree} removed, src/llvm-project at {sha(99)[:12]}, and your clone installed again"
    )
    assert "src/triton " not in last
    assert outcome.to_json()["restored"] == {
        "llvm-project": sha(99),
        "clone": {
            "path": str(clone),
            "head": sha(0),
            "moved": False,
            "worktree": str(worktree),
            "worktree_removed": True,
            "installed": True,
        },
    }
    left = _result_lines(dataclasses.replace(outcome, worktree_left=True))[-1]
    assert f"the worktree {worktree} still there (`tritondev bisect reset` removes it)" in left
    # A checkout tritondev made: both moved back, the starting build installed again.
    plain = _result_lines(BisectOutcome(j, state, Path("/ws")))[-1]
    assert plain == (
        f"restored: src/triton at {sha(0)[:12]}, src/llvm-project at {sha(99)[:12]}, and the starting "
        "build installed again"
    )
