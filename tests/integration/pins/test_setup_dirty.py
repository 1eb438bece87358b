"""`tritondev setup` never touches a Triton checkout with local work: exit 6, files named, bytes unchanged."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bootstrap.core.errors import ExitCode
from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import ensure_checkout
from tests.conftest import Cli
from tests.integration.pins.gitrepo import commit_files
from tests.support.snapshot import diff, snapshot
from tests.world.world import World


def test_setup_stops_on_a_dirty_triton_checkout(world: World, cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    checkout = ws / "src" / "triton"
    # The user's checkout sits at an older pin and carries all three kinds of local work.
    ensure_checkout(
        "triton", str(world.bare["triton"]), world.triton_commits["release-3.7"], checkout, Runner(silent=True)
    )
    local = commit_files(checkout, {"lib/mine.cc": "int mine;\n"}, "my experiment")
    (checkout / "setup.py").write_text((checkout / "setup.py").read_text() + "# my edit\n")
    (checkout / "scratch.txt").write_text("notes\n")
    before = snapshot(checkout)
    head_before = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout

    result = cli(
        "setup",
        "--workspace",
        str(ws),
        "--torch-ref",
        "v2.14.0",
        "--mirror",
        str(world.git_root),
        "--json",
        timeout=300,
    )

    assert result.returncode == int(ExitCode.LOCKED_OR_DIRTY) == 6, result.stderr[-2000:]
    error = json.loads(result.stdout)
    assert error["error"] == "DirtyCheckout"
    for name in ("setup.py", "scratch.txt", local[:12]):
        assert name in error["message"]
    assert "--allow-dirty" in error["fix"]
    assert diff(before, snapshot(checkout)) == []
    assert (
        subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout
        == head_before
    )
