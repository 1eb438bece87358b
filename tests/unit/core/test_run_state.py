"""Per-run state lives in the run (bootstrap/core/run_state.py): two commands run one after the other in
one process, and nothing of the first carries into the second: not the options given before its
command name, not --json, not the JSON document already printed, not the secrets learnt from its
command line, not the workspace its writes were anchored to, not the options its fix lines repeated."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from bootstrap import cli
from bootstrap.core import fixlines, run_state
from bootstrap.core.context import invocation
from bootstrap.core.io import writes

SECRET = "Zq7runsecret"


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out, captured.err


def test_a_second_command_in_one_process_starts_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TRITONDEV_WORKSPACE", "TRITONDEV_TRITON_URL", "VIRTUAL_ENV", "CONDA_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    first, second = tmp_path / "first", tmp_path / "second"
    monkeypatch.setenv("TRITONDEV_TRITON_URL", f"https://me:{SECRET}@example.com/triton.git")
    code, out, err = run_main(["--json", "--workspace", str(first), "config", "show"], capsys)
    assert code == 0 and SECRET not in out, err
    assert json.loads(out)["workspace"] == str(first)
    assert invocation().json and writes._anchor_of(str(first / "state" / "x")) == str(first)

    # The same secret, now as a plain path that is no credential: shown as given, since this run has not
    # been told it is one. --json, the workspace and the printed document of the first run are gone too.
    monkeypatch.setenv("TRITONDEV_TRITON_URL", f"https://example.com/{SECRET}/triton.git")
    code, out, err = run_main(["config", "show", "--workspace", str(second)], capsys)
    assert code == 0, err
    assert not out.lstrip().startswith("{"), "--json of the first run carried over"
    assert str(second) in out and str(first) not in out
    assert SECRET in out, "a secret learnt by the first run was still masked in the second"
    assert writes._anchor_of(str(first / "state" / "x")) is None
    assert writes._anchor_of(str(second / "state" / "x")) == str(second)
    assert not invocation().json_asked and invocation().workspace == second

    # A JSON document printed by an earlier run does not stop this run's error from being one.
    code, out, _ = run_main(["config", "show", "--json", "--build-type", "Fast"], capsys)
    assert code == 2 and json.loads(out)["exit_code"] == 2


def test_fix_lines_repeat_only_this_runs_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_main(["config", "show", "--workspace", str(tmp_path / "mine")], capsys)
    assert fixlines._run().given == {"--workspace": str(tmp_path / "mine")}
    run_main(["config", "show"], capsys)
    assert fixlines._run().given == {}
    assert fixlines.repeat_options("tritondev setup") == "tritondev setup"


def test_a_part_is_made_once_per_run_and_new_in_the_next() -> None:
    class Counter:
        def __init__(self) -> None:
            self.n = 0

    first = run_state.part(Counter)
    first.n += 1
    assert run_state.part(Counter) is first and run_state.part(Counter).n == 1
    run_state.start()
    assert run_state.part(Counter) is not first and run_state.part(Counter).n == 0


def test_threads_of_one_command_share_one_part() -> None:
    class Shared:
        pass

    seen: list[Shared] = []
    threads = [threading.Thread(target=lambda: seen.append(run_state.part(Shared))) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 16 and all(s is seen[0] for s in seen)
