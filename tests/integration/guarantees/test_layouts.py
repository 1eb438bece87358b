"""A property over workspace layouts: any file or folder tritondev writes or reads may be, instead, a link
to the user's file or folder, a dangling link, a folder, a FIFO or a file of the wrong kind; every command
run over such a workspace ends without exit 70, without hanging, and without changing one byte outside
the workspace (the user's files the links point at, the target environment).

Hypothesis draws the layouts (which paths are replaced, by what); each layout is run through the
commands below, for real, in subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.integration.guarantees.conftest import ODD, restore_target_venv, stale_kernel_cache
from tests.support.snapshot import diff, snapshot
from tests.world.world import World

# What tritondev writes or reads in a workspace (files and the folders that hold them).
PATHS = (
    "state/lock",
    "state/settings.json",
    "state/setup.json",
    "state/purge-journal.json",
    "state/bisect.json",
    "state/steps",
    "state/steps/triton-install.json",
    "logs/purge-probe.log",
    "logs/purge-restore.log",
    "logs/bisect",
    "logs/bisect/result.json",
    "logs",
    "state",
    "env.sh",
    "tritondev.toml",
    "src/triton",
    "src/triton.partial",
    "src",
)
KINDS = ("link to my file", "link to my folder", "dangling link", "folder", "fifo", "garbage", "json of the wrong kind")
W = ("--workspace", "{ws}")
COMMANDS = (
    ("config", "show", *W),
    ("pins", *W, "--mirror", "{mirror}", "--triton-commit", "{T}", "--json"),
    ("doctor", *W, "--python", "{py}", "--check", "packages", "--check", "workspace"),
    ("doctor", *W, "--python", "{py}", "--fix"),
    ("cache", "ls", *W, "--python", "{py}", "--dir", "{cache}", "--json"),
    ("env", *W),
    ("run", *W, "--python", "{py}", "--", "true"),
    ("purge", *W, "--python", "{py}", "--dry-run"),
    ("purge", *W, "--restore", "--json"),
    ("setup", *W, "--python", "{py}", "--mirror", "{mirror}", "--triton-commit", "{T}", "--dry-run"),
    ("build", *W),
    ("bisect", "resume", *W),
    ("bisect", "reset", *W),
)

layouts = st.dictionaries(st.sampled_from(PATHS), st.sampled_from(KINDS), min_size=1, max_size=4)


def _clear(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def make(ws: Path, mine: Path, relative: str, kind: str) -> None:
    path = ws / relative
    folder = ws
    for part in Path(relative).parts[:-1]:
        folder = folder / part
        if os.path.lexists(folder) and (folder.is_symlink() or not folder.is_dir()):
            return  # an earlier replacement of a folder above it wins
    path.parent.mkdir(parents=True, exist_ok=True)
    _clear(path)
    if kind == "link to my file":
        path.symlink_to(mine / "my file.txt")
    elif kind == "link to my folder":
        path.symlink_to(mine / "my folder")
    elif kind == "dangling link":
        path.symlink_to(mine / "nowhere" / "file")
    elif kind == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("mine\n")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "garbage":
        path.write_bytes(b"\xff\xfe\x00 not what tritondev wrote \x80\n")
    else:
        path.write_text(json.dumps([1, "two", {"settings": []}, None]))


def user_things(root: Path) -> Path:
    mine = root / f"mine {ODD}"
    (mine / "my folder").mkdir(parents=True)
    (mine / "my folder" / "keep.txt").write_text("the user's own\n")
    (mine / "my file.txt").write_text("the user's own\n")
    return mine


@pytest.mark.slow
@pytest.mark.timeout(3600)
@settings(database=None, deadline=None, max_examples=12, suppress_health_check=list(HealthCheck))
@given(layout=layouts)
def test_any_workspace_layout(layout: dict[str, str], cli: Cli, world: World, target_venv: Path) -> None:
    restore_target_venv(target_venv)
    with tempfile.TemporaryDirectory(prefix="tritondev-layout-") as tmp:
        root = Path(tmp) / ODD
        ws = root / "ws"
        (ws / "logs").mkdir(parents=True)
        (ws / "state").mkdir()
        mine = user_things(root)
        cache = stale_kernel_cache(root / f"cache {ODD}")
        for relative, kind in sorted(layout.items(), key=lambda item: item[0].count("/")):
            make(ws, mine, relative, kind)
        fields = {
            "ws": str(ws),
            "mirror": str(world.git_root),
            "T": world.triton_commits["main"],
            "py": str(target_venv / "bin" / "python"),
            "cache": str(cache),
        }
        outside = [mine, target_venv]
        before = snapshot(*outside)
        for command in COMMANDS:
            argv = [part.format(**fields) for part in command]
            try:
                proc = cli(*argv, cwd=root, timeout=300)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{' '.join(argv)} hung over {layout}")
            assert proc.returncode != 70, f"{' '.join(argv)} over {layout}:\n{proc.stderr[-3000:]}"
            assert "Traceback" not in proc.stderr, f"{' '.join(argv)} over {layout}:\n{proc.stderr[-3000:]}"
            changes = diff(before, snapshot(*outside))
            assert changes == [], f"{' '.join(argv)} over {layout} changed what is not the workspace's: {changes}"
