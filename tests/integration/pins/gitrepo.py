"""Small real git repositories for the checkout tests (the shared test world is read-only)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], env=ENV, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def commit_files(repo: Path, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_upstream(root: Path, commits: int = 4) -> tuple[Path, list[str], str]:
    """A bare upstream with `commits` commits on main and one on a release branch.

    Returns (bare repository, main's commits oldest first, the release-branch commit).
    """
    work = root / "upstream-work"
    work.mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    shas = [
        commit_files(work, {".gitignore": "build/\n*.so\n", "setup.py": "print('v0')\n", "lib/a.cc": "int a;\n"}, "c0")
    ]
    for i in range(1, commits):
        shas.append(commit_files(work, {"setup.py": f"print('v{i}')\n", f"lib/f{i}.cc": f"int f{i};\n"}, f"c{i}"))
    git(work, "checkout", "-q", "-b", "release/1.x", shas[1])
    release = commit_files(work, {"RELEASE.md": "backport\n"}, "backport")
    git(work, "checkout", "-q", "main")
    bare = root / "upstream.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], env=ENV, check=True)
    git(bare, "config", "uploadpack.allowAnySHA1InWant", "true")
    git(bare, "config", "uploadpack.allowFilter", "true")  # as GitHub: partial clones get only what they ask
    return bare, shas, release
