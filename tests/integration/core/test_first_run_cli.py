"""Everyday friction through the real CLI: output that is never cut, a dry run offline, retries shown
as they happen, and the settings a workspace remembers from its setup."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import REPO, Cli
from tests.integration.ccache_remote.redis import free_port
from tests.support.cli import tritondev_argv
from tests.support.terminal import read_until_closed

LONG = "a folder with a rather long name that no eighty-column table would ever show whole"


def _in_a_terminal(args: list[str], env: dict[str, str], columns: int) -> str:
    """tritondev's stdout as a terminal `columns` wide shows it (a real pseudo-terminal)."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        tritondev_argv(*args),
        stdout=child,
        stderr=subprocess.DEVNULL,
        env={**env, "COLUMNS": str(columns), "TERM": "xterm"},
    )
    os.close(child)
    shown = read_until_closed(main)
    proc.wait(timeout=60)
    return shown.replace("\r\n", "\n")


def _env(clean_env: dict[str, str], **extra: str) -> dict[str, str]:
    return {**clean_env, "PYTHONPATH": str(REPO), **extra}


def test_config_show_cuts_nothing_and_fills_in_the_defaults(
    cli: Cli, tmp_path: Path, clean_env: dict[str, str]
) -> None:
    ws = tmp_path / LONG / "ws"
    url = "https://github.com/pytorch/pytorch.git"
    piped = cli("config", "show", "--workspace", str(ws), env={"COLUMNS": "40"})
    assert piped.returncode == 0, piped.stderr
    lines = {line.split(" =", 1)[0]: line for line in piped.stdout.splitlines() if " =" in line}
    assert f"workspace = {ws}  (" in lines["workspace"]
    assert f"python = {ws / 'venv' / 'bin' / 'python'}  (default" in lines["python"]
    assert "first python3 on PATH" in lines["python"]
    assert lines["jobs"].split()[2].isdigit() and lines["link_jobs"].split()[2].isdigit(), lines["jobs"]
    assert f"pytorch_url = {url}" in lines["pytorch_url"]
    assert "…" not in piped.stdout
    env = _env(clean_env)
    short = tmp_path / "ws"
    for where, columns, table in ((ws, 40, False), (ws, 200, False), (short, 40, False), (short, 200, True)):
        # A table only where every value fits on one line; else plain lines. Never a value cut or folded.
        shown = _in_a_terminal(["config", "show", "--workspace", str(where)], env, columns)
        assert str(where / "venv" / "bin" / "python") in shown and url in shown and "…" not in shown, shown
        assert ("┃" in shown) is table, shown
    assert not ws.exists() and not short.exists()


def test_setup_dry_run_offline_shows_what_it_knows(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    closed = f"raw+http://127.0.0.1:{free_port()}"
    proc = cli("setup", "--workspace", str(ws), "--pytorch-url", closed, "--dry-run", "--json")
    # The real run would certainly fail (no pins): the dry run shows what it knows, and ends as that run would.
    assert proc.returncode == 4, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    assert "cannot download" in report["unresolved"]["pins"] and report["up_to_date"] is False
    assert report["error"]["exit_code"] == 4 and "cannot download" in report["error"]["message"]
    assert report["pins"]["pytorch_url"] == closed and report["toolchain"]["cmake"]
    assert report["jobs"]["compile"] >= 1 and report["target_python"] == str(ws / "venv" / "bin" / "python")
    text = cli("setup", "--workspace", str(ws), "--pytorch-url", closed, "--dry-run")
    assert text.returncode == 4 and "# not resolved: pins: the error below" in text.stdout
    assert (text.stdout + text.stderr).count("cannot download") == 1  # said once
    assert not ws.exists()
    real = cli("setup", "--workspace", str(ws), "--pytorch-url", closed)
    assert real.returncode == 4


def test_pins_verbose_shows_each_retry_as_it_happens(cli: Cli, tmp_path: Path) -> None:
    closed = f"raw+http://127.0.0.1:{free_port()}"
    proc = cli("pins", "--workspace", str(tmp_path / "ws"), "--pytorch-url", closed, "-v")
    assert proc.returncode == 4
    retries = [line for line in proc.stderr.splitlines() if "retrying in" in line]
    assert [r.split("(attempt ")[1] for r in retries] == ["2 of 4)", "3 of 4)", "4 of 4)"], proc.stderr
    assert proc.stderr.index("retrying in") < proc.stderr.index("error:")
    quiet = cli("pins", "--workspace", str(tmp_path / "ws"), "--pytorch-url", closed)
    assert quiet.returncode == 4 and "retrying in" not in quiet.stderr


def test_config_show_names_the_remembered_setup(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    state = ws / "state" / "settings.json"
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"settings": {"torch_ref": "v2.5.1", "mirror": str(tmp_path / "mirrors")}}))
    data = json.loads(cli("config", "show", "--workspace", str(ws), "--json").stdout)["settings"]
    assert data["torch_ref"] == {**data["torch_ref"], "value": "v2.5.1", "source": f"workspace:{state}"}
    assert data["mirror"]["source"] == f"workspace:{state}"
    given = json.loads(
        cli("config", "show", "--workspace", str(ws), "--json", env={"TRITONDEV_TRITON_COMMIT": "c" * 40}).stdout
    )["settings"]
    assert given["torch_ref"]["value"] is None and given["mirror"]["source"] == f"workspace:{state}"
    state.write_text("{broken")
    bad = cli("config", "show", "--workspace", str(ws))
    assert bad.returncode == 2 and f"fix: remove {state}" in bad.stderr.replace("\n", " ")
