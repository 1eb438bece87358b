"""git plumbing of the test world: repositories made with the real `git` binary, an isolated
configuration and a deterministic clock, and files written from templates."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"
_BASE_EPOCH = 1767225600  # 2026-01-01T00:00:00Z: fixed dates make commit ids reproducible


class Git:
    """Runs git in one repository with an isolated configuration and a deterministic clock."""

    def __init__(self, repo: Path, clock: list[int]) -> None:
        self.repo = repo
        self.clock = clock

    def env(self) -> dict[str, str]:
        stamp = f"@{_BASE_EPOCH + self.clock[0] * 3600} +0000"
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_AUTHOR_NAME="World Builder",
            GIT_AUTHOR_EMAIL="world@example.invalid",
            GIT_COMMITTER_NAME="World Builder",
            GIT_COMMITTER_EMAIL="world@example.invalid",
            GIT_AUTHOR_DATE=stamp,
            GIT_COMMITTER_DATE=stamp,
        )
        return env

    def __call__(self, *args: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.repo, env=self.env(), capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed in {self.repo}:\n{proc.stderr}")
        return proc.stdout.strip()

    def commit(self, message: str) -> str:
        self.clock[0] += 1
        self("add", "-A")
        self("commit", "-q", "--allow-empty", "-m", message)
        return self("rev-parse", "HEAD")

    def tag(self, name: str, message: str | None = None) -> None:
        self.clock[0] += 1
        self("tag", "-a", name, "-m", message or name)


def init_repo(path: Path, clock: list[int], branch: str = "main") -> Git:
    path.mkdir(parents=True)
    git = Git(path, clock)
    git("init", "-q", "-b", branch)
    git("config", "core.symlinks", "true")
    return git


def clear_tree(repo: Path) -> None:
    for child in repo.iterdir():
        if child.name == ".git":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


_CONDITION = re.compile(r"^\s*(?:#|//)?\s*%%(IF|ELSE|ENDIF)(?: (!?)([A-Z0-9_]+))?%%\s*$")


def select_lines(text: str, flags: Mapping[str, bool]) -> str:
    """Keep the lines of `%%IF NAME%%` / `%%IF !NAME%%` ... [`%%ELSE%%` ...] `%%ENDIF%%` blocks whose
    condition holds (blocks nest); the marker lines themselves go. A commit then holds only its era's
    code, as the real one does, so tools that read the files see what upstream's files say."""
    out: list[str] = []
    stack: list[bool] = []  # whether each open block's current branch is kept
    for line in text.splitlines(keepends=True):
        match = _CONDITION.match(line)
        if match is None:
            if all(stack):
                out.append(line)
            continue
        kind, negate, name = match.groups()
        if kind == "IF":
            stack.append(flags[name] != bool(negate))
        elif kind == "ELSE":
            stack[-1] = not stack[-1]
        else:
            stack.pop()
    if stack:
        raise ValueError("unclosed %%IF%% block")
    return "".join(out)


def copy_template(src: Path, dest: Path, subst: Mapping[str, str], flags: Mapping[str, bool] | None = None) -> None:
    """Copy a template tree, keeping the `%%IF FLAG%%` blocks whose flag holds and replacing %%NAME%%
    markers in text files; `.tmpl` suffixes are dropped."""
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if "__pycache__" in rel.parts or path.is_dir():
            continue
        target = dest / (str(rel)[: -len(".tmpl")] if rel.name.endswith(".tmpl") else rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        try:
            text = data.decode()
        except UnicodeDecodeError:
            target.write_bytes(data)
        else:
            text = select_lines(text, flags or {})
            for key, value in subst.items():
                text = text.replace(f"%%{key}%%", value)
            target.write_text(text)
        target.chmod(path.stat().st_mode & 0o777)


def write_file(repo: Path, rel: str, text: str) -> None:
    target = repo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def make_bare(work: Path, bare: Path) -> None:
    """A bare copy with every branch and tag, configured so that a fetch by sha works (git daemon too)."""
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True, capture_output=True)
    g = Git(bare, [0])
    g("remote", "remove", "origin")
    g("config", "uploadpack.allowAnySHA1InWant", "true")
    g("config", "uploadpack.allowReachableSHA1InWant", "true")
    g("config", "uploadpack.allowTipSHA1InWant", "true")
    g("config", "uploadpack.allowFilter", "true")
    (bare / "git-daemon-export-ok").touch()
    g("update-server-info")  # also usable by a dumb HTTP server
