"""Prepare functions for the adversarial tables of paths and output: what a file tritondev writes or
reads may be instead (a link to the user's file or folder, a dangling link, a folder, a FIFO, a file of
the wrong kind), and outside data that must not widen what a command touches.

Every user's thing a case creates outside the workspace is added to the scene's roots, so the table's
check proves it byte for byte unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.integration.guarantees.conftest import ODD
from tests.integration.guarantees.scene import Prepare, Scene

MINE = "the user's own file: not one byte may change\n"


def _place(s: Scene, relative: str) -> Path:
    path = s.ws / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    return path


def my_file(s: Scene, name: str = "my notes.txt", text: str = MINE) -> Path:
    folder = s.tmp / f"mine {ODD}"
    folder.mkdir(exist_ok=True)
    if folder not in s.roots:
        s.roots.append(folder)
    path = folder / name
    path.write_text(text)
    return path


def link_to_my_file(relative: str, text: str = MINE) -> Prepare:
    """`relative` (in the workspace) is a link to a file of the user's."""

    def prepare(s: Scene) -> None:
        _place(s, relative).symlink_to(my_file(s, text=text))

    return prepare


def link_to_my_folder(relative: str) -> Prepare:
    def prepare(s: Scene) -> None:
        folder = s.tmp / f"my folder {ODD}"
        folder.mkdir()
        (folder / "keep.txt").write_text(MINE)
        s.roots.append(folder)
        path = s.ws / relative
        if path.is_dir() and not path.is_symlink():
            for child in path.iterdir():
                child.unlink()
            path.rmdir()
        path.symlink_to(folder)

    return prepare


def dangling_link(relative: str) -> Prepare:
    """`relative` is a link to a path that does not exist: following it would create a file there."""

    def prepare(s: Scene) -> None:
        nowhere = s.tmp / f"nowhere {ODD}" / "created by following a link"
        _place(s, relative).symlink_to(nowhere)
        s.absent.append(nowhere.parent)

    return prepare


def folder_at(relative: str) -> Prepare:
    def prepare(s: Scene) -> None:
        path = _place(s, relative)
        path.mkdir()
        (path / "inside.txt").write_text(MINE)

    return prepare


def fifo_at(relative: str) -> Prepare:
    def prepare(s: Scene) -> None:
        os.mkfifo(_place(s, relative))

    return prepare


def file_at(relative: str, data: str | bytes) -> Prepare:
    def prepare(s: Scene) -> None:
        path = _place(s, relative)
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    return prepare


def env_sh(text: str) -> Prepare:
    return file_at("env.sh", text)


def journal_elsewhere(s: Scene) -> None:
    """state/purge-journal.json is a link to a valid, empty journal of the user's elsewhere."""
    target = my_file(s, "journal.json", json.dumps({"format": 1, "runs": []}))
    _place(s, "state/purge-journal.json").symlink_to(target)


def src_link(name: str, to: str) -> Prepare:
    """src/<name> is a link: to an empty folder of the user's, to nothing, or to a file."""

    def prepare(s: Scene) -> None:
        src = s.ws / "src"
        src.mkdir(exist_ok=True)
        if to == "empty folder":
            target = s.tmp / f"empty {ODD}"
            target.mkdir()
            s.roots.append(target)
        elif to == "file":
            target = my_file(s)
        else:
            target = s.tmp / f"nowhere {ODD}"
            s.absent.append(target)
        (src / name).symlink_to(target)
        s.absent.append(src / f"{name}.partial")

    return prepare


def partial_link(s: Scene) -> None:
    mine = s.tmp / f"my clone {ODD}"
    mine.mkdir()
    (mine / ".tritondev-partial-clone").write_text("copied, but not ours\n")
    (mine / "work.c").write_text(MINE)
    s.roots.append(mine)
    (s.ws / "src").mkdir(exist_ok=True)
    (s.ws / "src" / "triton.partial").symlink_to(mine)


def replay_input_link(s: Scene) -> None:
    """--out names a folder whose input.mlir is a link to the user's file."""
    out = s.tmp / f"replay {ODD}"
    out.mkdir()
    (out / "input.mlir").symlink_to(my_file(s))
    s.fields["out"] = str(out)
    s.roots.append(out)


def site_packages(s: Scene) -> Path:
    (found,) = (s.venv / "lib").glob("python3*/site-packages")
    return found


def broken_tritonclient(s: Scene) -> None:
    """tritonclient's metadata without METADATA (a broken install): RECORD and INSTALLER only."""
    sp = site_packages(s)
    meta = sp / "tritonclient-2.41.0.dist-info"
    meta.mkdir()
    (meta / "RECORD").write_text(
        "tritonclient/__init__.py,,\ntritonclient-2.41.0.dist-info/RECORD,,\n"
        "tritonclient-2.41.0.dist-info/INSTALLER,,\n"
    )
    (meta / "INSTALLER").write_text("pip\n")
    (sp / "tritonclient").mkdir()
    (sp / "tritonclient" / "__init__.py").write_text("CLIENT = 1\n")
    s.fields["tritonclient"] = str(meta)


def stale_git_index(s: Scene) -> None:
    """A Triton checkout whose index is stale (a tracked file's time changed): `git status` would rewrite
    .git/index unless it runs without optional locks."""
    dest = s.ws / "src" / "triton"
    subprocess.run(["git", "clone", "-q", str(s.world.bare["triton"]), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "--detach", s.world.triton_commits["main"]], check=True)
    os.utime(dest / "setup.py", (1_600_000_000, 1_600_000_000))
    s.fields["index"] = str(dest / ".git" / "index")


def nan_cache_entry(s: Scene) -> None:
    """A kernel-cache entry whose metadata holds NaN and Infinity (valid to Python's json, not to JSON)."""
    cache = s.tmp / f"cache {ODD}"
    entry = cache / "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST"
    entry.mkdir(parents=True)
    (entry / "add_kernel.json").write_text(
        '{"name": "add_kernel", "triton_version": NaN, "num_warps": Infinity, "num_stages": -Infinity,'
        ' "shared": NaN, "target": {"backend": "cuda", "arch": NaN, "warp_size": 32}}'
    )
    (entry / "add_kernel.ttir").write_text("module {}\n")
    s.fields["cache"] = str(cache)
    s.roots.append(cache)
