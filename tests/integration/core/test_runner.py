"""The process runner: echo, dry-run, logs, git hardening, typed errors (real processes)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bootstrap.core.errors import CommandFailed, ExitCode
from bootstrap.core.process.runner import Runner


def make(tmp_path: Path, dry_run: bool = False) -> tuple[Runner, list[str]]:
    echoed: list[str] = []
    runner = Runner(log_dir=tmp_path / "logs", echo=echoed.append, dry_run=dry_run)
    return runner, echoed


def test_runs_and_logs(tmp_path: Path) -> None:
    runner, echoed = make(tmp_path)
    result = runner.run([sys.executable, "-c", "print('hello')"], step="greet")
    assert result.stdout.strip() == "hello"
    assert echoed and "print" in echoed[0]
    log = (tmp_path / "logs" / "greet.log").read_text()
    assert "hello" in log and "# exit status 0" in log


def test_failure_raises_typed_error_with_tail_and_log(tmp_path: Path) -> None:
    runner, _ = make(tmp_path)
    code = "import sys\nfor i in range(100): print('line', i)\nsys.exit(3)"
    with pytest.raises(CommandFailed) as info:
        runner.run([sys.executable, "-c", code], step="boom")
    err = info.value
    assert err.returncode == 3
    assert err.exit_code == ExitCode.EXTERNAL_FAILED
    assert err.log_path == tmp_path / "logs" / "boom.log"
    assert err.tail[-1] == "line 99"
    assert "exit status 3" in err.message


def test_streaming_hands_lines_over(tmp_path: Path) -> None:
    runner, _ = make(tmp_path)
    seen: list[str] = []
    code = "import sys\nprint('[1/2] a'); print('[2/2] b', file=sys.stderr)"
    runner.stream([sys.executable, "-c", code], step="ninja", on_line=seen.append)
    assert seen == ["[1/2] a", "[2/2] b"]


def test_dry_run_still_runs_probes(tmp_path: Path) -> None:
    runner, _ = make(tmp_path, dry_run=True)
    result = runner.capture([sys.executable, "-c", "print(42)"], step="probe")
    assert result.stdout.strip() == "42"


def test_timeout_is_command_failed(tmp_path: Path) -> None:
    runner, _ = make(tmp_path)
    with pytest.raises(CommandFailed) as info:
        runner.run([sys.executable, "-c", "import time; time.sleep(30)"], step="slow", timeout=0.5)
    assert info.value.timed_out


def test_git_environment_is_stripped_and_hardened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A real git reads the variables: GIT_DIR pointing elsewhere must not leak into our call.
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "leak")
    repo = tmp_path / "repo"
    runner, _ = make(tmp_path)
    runner.run(["git", "init", "-q", str(repo)], step="git")
    assert (repo / ".git").is_dir()
    assert not (tmp_path / "elsewhere").exists()
    # ext:: transports are refused by GIT_ALLOW_PROTOCOL.
    with pytest.raises(CommandFailed) as info:
        runner.run(["git", "ls-remote", "ext::sh -c touch% /tmp/pwned"], step="git")
    assert "transport 'ext' not allowed" in "\n".join(info.value.tail)


def test_no_shell_is_used(tmp_path: Path) -> None:
    runner, _ = make(tmp_path)
    result = runner.run([sys.executable, "-c", "import sys; print(sys.argv[1])", "$(echo hi); rm -rf /"], step="x")
    assert result.stdout.strip() == "$(echo hi); rm -rf /"


def test_passwords_are_redacted_in_echo_and_log(tmp_path: Path) -> None:
    runner, echoed = make(tmp_path)
    url = "redis://u:s3cret@127.0.0.1:1"
    runner.run([sys.executable, "-c", "import sys; print(sys.argv[1])", url], step="secret")
    log = (tmp_path / "logs" / "secret.log").read_text()
    assert "s3cret" not in echoed[0] and "s3cret" not in log


def test_log_restarts_per_run_and_appends_within_step(tmp_path: Path) -> None:
    # Markers that cannot appear in a path or in the log's own header lines.
    runner, _ = make(tmp_path)
    runner.run([sys.executable, "-c", "print('marker' + '-first')"], step="s")
    runner.run([sys.executable, "-c", "print('marker' + '-second')"], step="s")
    text = (tmp_path / "logs" / "s.log").read_text()
    assert "marker-first" in text and "marker-second" in text
    again, _ = make(tmp_path)
    again.run([sys.executable, "-c", "print('marker' + '-third')"], step="s")
    text = (tmp_path / "logs" / "s.log").read_text()
    assert "marker-first" not in text and "marker-third" in text


def test_env_overrides_and_removal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DROP_ME", "x")
    runner, _ = make(tmp_path)
    code = "import os; print(os.environ.get('DROP_ME'), os.environ['ADD_ME'])"
    out = runner.run([sys.executable, "-c", code], step="e", env={"DROP_ME": None, "ADD_ME": "y"}).stdout
    assert out.split() == ["None", "y"]
    assert os.environ["DROP_ME"] == "x"
