"""`tritondev docker build|run`'s outcome and host folders (bootstrap.docker.run): the JSON document with
credentials masked, and host folders that cannot be made refused before any engine runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.docker.plan import Engine
from bootstrap.docker.run import DockerResult, _make_folder


def test_the_outcome_masks_credentials_and_names_what_it_creates() -> None:
    argv = ("podman", "build", "--build-arg", "PIP_INDEX_URL=https://me:s3cret@pypi.example.com/simple", ".")
    outcome = DockerResult(
        Engine("podman", "/usr/bin/podman", rootless=True),
        "tritondev:0.1.0",
        argv,
        dry_run=True,
        created=("/home/me/tritondev",),
    )
    document = outcome.to_json()
    assert document["engine"] == {"flavour": "podman", "program": "/usr/bin/podman", "rootless": True}
    assert "s3cret" not in str(document) and document["dry_run"] is True
    assert document["create"] == ["/home/me/tritondev"] and document["returncode"] == 0
    assert str(document["command"]).startswith("podman build")


def test_a_host_folder_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "ws").write_text("not a folder")
    with pytest.raises(UsageError, match=r"the workspace .* exists and is not a folder"):
        _make_folder(tmp_path / "ws", "workspace")
    _make_folder(tmp_path / "ccache" / "deeper", "ccache folder")
    assert (tmp_path / "ccache" / "deeper").is_dir()
