"""Settings precedence, sources and errors (real files and environment, no mocks)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli


def test_config_show_json_reports_value_and_source(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "tritondev.toml").write_text('build_type = "Debug"\n')
    result = cli("config", "show", "--json", env={"TRITONDEV_WORKSPACE": str(tmp_path), "TRITONDEV_JOBS": "7"})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["settings"]["build_type"] == {
        "value": "Debug",
        "source": f"file:{tmp_path / 'tritondev.toml'}",
        "env": "TRITONDEV_BUILD_TYPE",
        "effective": "Debug",
        "note": "",
    }
    assert data["settings"]["jobs"]["value"] == 7
    assert data["settings"]["jobs"]["source"] == "env:TRITONDEV_JOBS"
    assert data["settings"]["lld"]["source"] == "default"


def test_config_show_bad_key_exits_2_with_suggestion(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "tritondev.toml").write_text("jbos = 4\n")
    result = cli("config", "show", "--workspace", str(tmp_path))
    assert result.returncode == 2
    assert "did you mean 'jobs'" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_show_masks_secrets(cli: Cli, tmp_path: Path) -> None:
    url = "redis://user:hunter2@127.0.0.1:6379"
    result = cli("config", "show", "--json", env={"TRITONDEV_WORKSPACE": str(tmp_path), "TRITONDEV_CCACHE_REMOTE": url})
    assert result.returncode == 0
    assert "hunter2" not in result.stdout + result.stderr
    assert json.loads(result.stdout)["settings"]["ccache_remote"]["value"] == "redis://***:***@127.0.0.1:6379"


def test_config_show_does_not_create_workspace(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "not-yet"
    assert cli("config", "show", "--workspace", str(ws)).returncode == 0
    assert not ws.exists()


def test_bad_ccache_remote_is_rejected_before_anything_is_created(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result = cli("setup", "--dry-run", "--workspace", str(ws), "--ccache-remote", "ftp://user:pw@host")
    assert result.returncode == 2
    assert "pw@" not in result.stderr and "unsupported ccache remote URL" in result.stderr
    assert not ws.exists()
