"""The build summary's ccache figures (bootstrap.pipeline.ccache.stats) with and without a remote, and bad
remote settings refused before anything changes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.build.harness import base_env, tritondev


def test_bad_remote_url_is_exit_2_and_builds_nothing(tmp_path: Path) -> None:
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    ws = tmp_path / "ws"
    for url, needle in (
        ("ftp://u:hunter2@h/x", "unsupported ccache remote URL"),
        ("redis://u:hunt@er2@h", "percent-encode"),
    ):
        proc = tritondev("setup", "--workspace", str(ws), "--ccache-remote", url, "--json", env=env, timeout=120)
        assert proc.returncode == 2, proc.stderr
        error = json.loads(proc.stdout)
        assert needle in error["message"] + (error["fix"] or "")
        assert "hunt" not in proc.stdout + proc.stderr and "er2" not in proc.stdout + proc.stderr
        # The URL is judged while settings load: the workspace is not even created.
        assert not ws.exists()
    # A bad URL in the environment is a bad setting like any other: every command refuses it (exit 2)
    # while settings load, before anything runs, and the password stays masked.
    env["TRITONDEV_CCACHE_REMOTE"] = "ftp://u:hunter2@h/x"
    proc = tritondev("doctor", "--workspace", str(ws), "--check", "toolchain.ccache-remote", "--json", env=env)
    assert proc.returncode == 2
    assert "unsupported ccache remote URL" in json.loads(proc.stdout)["message"]
    assert "hunter2" not in proc.stdout + proc.stderr
