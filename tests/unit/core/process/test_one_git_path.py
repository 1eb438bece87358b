"""Every git command tritondev runs gets the one git hardening (bootstrap.core.process.command_env.git_hardening):
no hook, no fsmonitor, no filter driver of the repository's or the user's config.

Two halves, both read off the code rather than trusted: no module but bootstrap/core/process/runner.py can start a
process (read with `ast`: a subprocess import, os.system, os.exec*, os.spawn*, os.posix_spawn*, pty,
asyncio's subprocesses), and every way the runner starts one (run, capture, stream, run_attached, and
the listing of filter drivers itself) hands a git command an environment whose last word on each of
those settings is the hardening's, whatever the caller set. The process start is replaced by a recorder
(a unit test starts none); tests/integration/guarantees/test_git_hardening.py runs the real thing.
"""

from __future__ import annotations

import ast
import io
import os
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core import run_state
from bootstrap.core.process import runner as runner_module
from bootstrap.core.process.command_env import filter_drivers, git_global_options, git_hardening, with_git_config
from bootstrap.core.process.runner import Runner
from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[4]
STARTERS = {
    "system",
    "popen",
    "fork",
    "forkpty",
    "posix_spawn",
    "posix_spawnp",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "execv",
    "execve",
    "execvp",
    "execvpe",
}
# Stdlib-only scripts that run inside the target interpreter (they cannot import tritondev): none runs git.
INSIDE = REPO / "bootstrap" / "core" / "target" / "scripts"


def _starts_a_process(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"import {n}" for n in names if n.split(".")[0] in ("subprocess", "pty")]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "os" and node.attr in STARTERS:
                found.append(f"os.{node.attr}")
            if node.value.id == "asyncio" and node.attr.startswith("create_subprocess"):
                found.append(f"asyncio.{node.attr}")
    return found


def test_only_the_runner_starts_processes() -> None:
    findings = []
    for path in sorted((REPO / "bootstrap").rglob("*.py")):
        if path.name == "runner.py" and path.parent.name == "process":
            continue
        starts = _starts_a_process(parsed(path.read_text(encoding="utf-8")))
        if path.is_relative_to(INSIDE):
            assert "git" not in path.read_text(encoding="utf-8").replace("+git", "") or not starts, path
            continue
        findings += [f"{path.relative_to(REPO)}: {what}" for what in starts]
    assert findings == []


class _Started:
    """What the runner asked to start: a finished process that said `listing` on stdout."""

    calls: ClassVar[list[tuple[list[str], dict[str, str]]]] = []
    listing = "filter.evil.clean\0filter.a.b c.process\0"

    def __init__(self, args: list[str], **options: Any) -> None:
        _Started.calls.append((list(args), dict(options.get("env") or {})))
        said = self.listing if "--get-regexp" in args else ""
        self.returncode = 0
        self.args = args
        text = options.get("text") or options.get("universal_newlines")
        self.stdout = (
            (io.StringIO(said) if text else io.BytesIO(said.encode())) if options.get("stdout") is not None else None
        )
        self.stderr = None

    def __enter__(self) -> _Started:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def communicate(self, input: object = None, timeout: object = None) -> tuple[str, str]:
        return (self.stdout.getvalue() if isinstance(self.stdout, io.StringIO) else ""), ""

    def wait(self, timeout: object = None) -> int:
        return 0

    def poll(self) -> int:
        return 0

    def kill(self) -> None:
        pass


def _config(env: dict[str, str]) -> dict[str, str]:
    """The command-scope config `env` gives git, as git reads it (a later key wins)."""
    config: dict[str, str] = {}
    for i in range(int(env.get("GIT_CONFIG_COUNT", "0"))):
        config[env[f"GIT_CONFIG_KEY_{i}"].lower()] = env[f"GIT_CONFIG_VALUE_{i}"]
    return config


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[list[str], dict[str, str]]]:
    monkeypatch.setattr(subprocess, "Popen", _Started)  # the runner's own module object
    monkeypatch.setattr(runner_module, "resolve_program", lambda program, *_a, **_k: f"/usr/bin/{program}")
    run_state.start()  # no filter drivers listed yet this run
    monkeypatch.setenv("HOME", str(tmp_path))
    _Started.calls = []
    return _Started.calls


HOSTILE_CALLER = {
    "GIT_CONFIG_COUNT": "3",
    "GIT_CONFIG_KEY_0": "core.hooksPath",
    "GIT_CONFIG_VALUE_0": "/evil",
    "GIT_CONFIG_KEY_1": "core.fsmonitor",
    "GIT_CONFIG_VALUE_1": "/evil/fsmonitor",
    "GIT_CONFIG_KEY_2": "filter.evil.clean",
    "GIT_CONFIG_VALUE_2": "evil",
}


def test_every_entry_point_hands_git_the_hardening(
    started: list[tuple[list[str], dict[str, str]]], tmp_path: Path
) -> None:
    runner = Runner(log_dir=tmp_path / "logs", silent=True)
    repo = str(tmp_path / "repo")
    argv = ["git", "-C", repo, "checkout", "x"]
    runner.run(argv, step="a", env=HOSTILE_CALLER)
    runner.capture(["/usr/bin/git", "-C", repo, "status"], step="a", env=HOSTILE_CALLER)
    runner.stream(argv, step="a", env=HOSTILE_CALLER)
    runner.with_variables(HOSTILE_CALLER).run(["git", "worktree", "add", "p"], step="a", cwd=repo)
    gits = [(args, env) for args, env in started if os.path.basename(args[0]) == "git"]
    assert len(gits) >= 5  # four commands and at least one listing of the filter drivers
    for args, env in gits:
        config = _config(env)
        assert config["core.hookspath"] == os.devnull and config["core.fsmonitor"] == "false", args
        if "--get-regexp" not in args:  # the listing runs before the drivers are known (it runs none)
            for name in ("evil", "a.b c"):
                assert config[f"filter.{name}.clean"] == config[f"filter.{name}.smudge"] == ""
                assert config[f"filter.{name}.process"] == "" and config[f"filter.{name}.required"] == "false"
    listings = [args for args, _ in gits if "--get-regexp" in args]
    assert ["-C", repo] == listings[0][1:3]  # listed where the command runs


def test_a_users_own_git_command_is_left_as_the_user_gave_it(
    started: list[tuple[list[str], dict[str, str]]], tmp_path: Path
) -> None:
    """run_attached runs the user's own command (`tritondev run -- git commit`): their hooks are theirs."""
    Runner(log_dir=None, silent=True).run_attached(["git", "-C", str(tmp_path), "commit"], step="run")
    gits = [env for args, env in started if os.path.basename(args[0]) == "git"]
    assert len(gits) == 1 and gits[0].get("GIT_CONFIG_COUNT") == os.environ.get("GIT_CONFIG_COUNT")


def test_other_programs_are_left_as_they_are(started: list[tuple[list[str], dict[str, str]]], tmp_path: Path) -> None:
    Runner(log_dir=None, silent=True).run(["cmake", "--version"], step="a")
    assert [args for args, _ in started] == [["/usr/bin/cmake", "--version"]]
    assert "GIT_CONFIG_COUNT" not in started[0][1] or started[0][1].get("GIT_CONFIG_COUNT") == os.environ.get(
        "GIT_CONFIG_COUNT"
    )


def test_global_options_and_driver_names_are_read_as_git_reads_them() -> None:
    assert git_global_options(["git", "-C", "/r", "-c", "a.b=c", "--no-optional-locks", "status", "-C", "x"]) == (
        "-C",
        "/r",
        "-c",
        "a.b=c",
        "--no-optional-locks",
    )
    assert git_global_options(["git", "--git-dir=/r/.git", "fetch"]) == ("--git-dir=/r/.git",)
    assert filter_drivers("filter.lfs.clean\0filter.lfs.smudge\0filter.My.Name.process\0filter.x\0") == (
        "lfs",
        "My.Name",
    )


keys = st.sampled_from(
    ["core.hooksPath", "core.fsmonitor", "filter.evil.clean", "filter.evil.required", "url.x.insteadOf"]
)


@given(
    st.lists(st.text(min_size=1).filter(lambda s: "\0" not in s), max_size=5),
    st.lists(st.tuples(keys, st.text()), max_size=4),
)
def test_the_hardening_has_the_last_word_whatever_came_before(
    drivers: list[str], before: list[tuple[str, str]]
) -> None:
    env = with_git_config({}, before)  # a caller's own settings (a URL rewrite), or a hostile caller's
    env = with_git_config(env, git_hardening(["evil", *drivers]))
    config = _config(env)
    assert config["core.hookspath"] == os.devnull and config["core.fsmonitor"] == "false"
    for name in drivers:
        assert config[f"filter.{name}.clean".lower()] == "" and config[f"filter.{name}.required".lower()] == "false"
