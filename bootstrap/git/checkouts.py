"""Checkouts of Triton and LLVM at their exact pinned commits, without ever losing local work.

- History as asked (bootstrap.git.history): Triton's checkout is a blobless partial clone of every
  branch on a local branch `tritondev/<pin8>`; LLVM's the pinned commit at depth 1; everything with
  --full-history. An existing checkout is reused and gets only the objects it lacks (a full clone is
  never made shallow, a partial one fetches through its promisor remote).
- Never destructive: a checkout with modified or staged files, untracked files (not ignored), or
  commits found on no remote, tag or earlier pin is never reset, stashed or deleted. Setup stops
  with exit 6 naming them; with --allow-dirty it builds the checkout as it stands and reports how
  it differs from the pin. The dirtiness check runs before anything is written, and uses
  `git --no-optional-locks status` so that not even the index file is touched; it is as fast as git
  can make it on a tree of LLVM's size (bootstrap.git.local_changes) and names every file.
- Interrupt-safe: a new clone is assembled in `<dest>.partial` and renamed into place at the end.
- One guarded move: every command that moves a checkout to another commit (setup, bisect and its
  restore) goes through `guarded_move`, which refuses over local work and over ignored files the
  commit tracks.
- Under --dry-run (runner.dry_run) nothing is changed: reads run, writes are only shown.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bootstrap.core.errors import ConfigError, DirtyCheckout, WouldLoseData
from bootstrap.core.io import writes
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact, without_credentials
from bootstrap.core.settings.settings_table import Settings
from bootstrap.git.history import (
    History,
    blobless_fetch,
    branch_for,
    credential_env,
    is_partial,
    origin_url,
)
from bootstrap.git.moves import (
    PARTIAL_MARK,
    git_out,
    guarded_move,
    has_commit,
    inspect_checkout,
    refuse_overwriting_ignored,
    shown_names,
)
from bootstrap.git.refs import PIN_REF_PREFIX, validate_commit, validate_repo_url

__all__ = ["CheckoutReport", "ensure_checkout", "inspect_checkout", "repository_url"]

# Checkout name -> settings field holding its URL.
URL_SETTINGS = {"pytorch": "pytorch_url", "triton": "triton_url", "llvm-project": "llvm_url"}


def repository_url(settings: Settings, name: str, default: str) -> str:
    """The URL (or path) `name` ("pytorch", "triton", "llvm-project") is fetched from.

    An URL the user set (file, environment, option) wins; else `--mirror DIR` gives DIR/<name>.git;
    else `default`.
    """
    field = URL_SETTINGS.get(name)
    if field is not None:
        value = getattr(settings, field)
        if value and settings.source_of(field).given:
            return str(value)
    if settings.mirror is not None:
        path = settings.mirror / f"{name}.git"
        if not path.is_dir():
            raise ConfigError(
                f"mirror folder {settings.mirror} has no {name}.git",
                fix=f"create it with `git clone --mirror <url> {path}`, or pass the URL option for {name}",
            )
        return str(path)
    if field is not None:
        value = getattr(settings, field)
        if value:
            return str(value)
    return default


CheckoutAction = Literal["cloned", "fetched", "up-to-date", "dirty-kept", "adopted"]  # adopted: your own clone


@dataclass(frozen=True)
class CheckoutReport:
    path: Path
    commit: str  # the pin
    head: str  # what the checkout has now (equals commit unless dirty-kept, or "" under dry-run of a new clone)
    dirty_files: tuple[str, ...]  # modified, staged or untracked (not ignored) files, as `git status` names them
    local_commits: tuple[str, ...]  # commits in HEAD found on no remote, tag or earlier pin
    action: CheckoutAction

    @property
    def matches_pin(self) -> bool:
        return self.head == self.commit and not self.dirty_files and not self.local_commits

    def summary(self) -> str:
        """One line for the user: how this checkout differs from the pin (or that it matches)."""
        if self.matches_pin:
            return f"{self.path} at {self.commit[:12]} ({self.action})"
        parts = []
        if self.head != self.commit:
            parts.append(f"HEAD is {self.head[:12] or 'unborn'}, the pin is {self.commit[:12]}")
        if self.dirty_files:
            parts.append(f"{len(self.dirty_files)} changed or untracked file(s): {shown_names(self.dirty_files)}")
        if self.local_commits:
            parts.append(
                f"{len(self.local_commits)} local commit(s): {shown_names(tuple(c[:12] for c in self.local_commits))}"
            )
        return f"{self.path} differs from the pin: " + "; ".join(parts)

    def to_json(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "commit": self.commit,
            "head": self.head,
            "dirty_files": list(self.dirty_files),
            "local_commits": list(self.local_commits),
            "action": self.action,
            "matches_pin": self.matches_pin,
            "summary": self.summary(),
        }


def _is_repo_root(dest: Path, runner: Runner, step: str) -> bool:
    result = runner.capture(["git", "-C", str(dest), "rev-parse", "--show-toplevel"], step=step, check=False)
    if result.returncode != 0:
        return False
    return Path(result.stdout.strip()).resolve() == dest.resolve()


def _is_shallow(dest: Path, runner: Runner, step: str) -> bool:
    return git_out(runner, dest, "rev-parse", "--is-shallow-repository", step=step, probe=True).strip() == "true"


def _fetch_args(url: str, commit: str, *, shallow: bool, full_history: bool) -> list[str]:
    """`git fetch` of exactly `commit` (and with full history, every branch and tag)."""
    args = ["fetch", "--no-write-fetch-head"]
    if full_history:
        args += ["--tags"] + (["--unshallow"] if shallow else [])
    else:
        args += ["--no-tags"] + (["--depth", "1"] if shallow else [])
    args += ["--end-of-options", url, f"+{commit}:{PIN_REF_PREFIX}{commit}"]
    if full_history:
        # Upstream branches land in their own namespace: the user's origin/* refs stay as they are.
        args.append("+refs/heads/*:refs/remotes/tritondev-upstream/*")
    return args


def ensure_checkout(
    name: str,
    url: str,
    commit: str,
    dest: Path,
    runner: Runner,
    *,
    allow_dirty: bool = False,
    full_history: bool = False,
    history: History = "pin",
) -> CheckoutReport:
    """Make `dest` a checkout of `url` at `commit`, reusing what is there.

    history: what a new clone fetches (bootstrap.git.history); full_history means "full".

    Raises DirtyCheckout (exit 6) naming the files or commits when the checkout has local work,
    unless allow_dirty: then it is left exactly as it is and the report says how it differs.
    """
    commit = validate_commit(commit, f"{name} commit")
    location = validate_repo_url(url, f"{name} URL")
    if location.kind == "raw":
        raise ConfigError(f"{name}: a raw-file URL cannot be cloned", fix=f"give a git URL or path for {name}")
    url = location.url
    step = f"checkout-{name}"

    if not runner.dry_run:
        _finish_cut_short_rename(dest)
    if dest.is_symlink() and not (dest.is_dir() and any(dest.iterdir())):
        raise ConfigError(
            f"{dest} is a symbolic link to {os.readlink(dest)}, not a {name} checkout; tritondev makes its clones"
            " in place and never clones through a link",
            fix=f"remove the link (rm {dest}; what it points to stays), or point it at a clone of {name};"
            " then run the command again",
        )
    if dest.exists() and not dest.is_dir():
        raise DirtyCheckout(
            f"{dest} is a file, not a {name} checkout; it is left alone",
            fix=f"move {dest} away, or choose another workspace",
        )
    if dest.is_dir() and any(dest.iterdir()):
        if not _is_repo_root(dest, runner, step):
            raise DirtyCheckout(
                f"{dest} exists and is not a git checkout; it is left alone",
                fix=f"move {dest} away (or empty it) and run again",
            )
        return _update_existing(name, url, commit, dest, runner, step, allow_dirty, full_history)
    return _clone_new(name, url, commit, dest, runner, step, "full" if full_history else history)


def _clone_new(
    name: str, url: str, commit: str, dest: Path, runner: Runner, step: str, history: History
) -> CheckoutReport:
    partial = dest.with_name(dest.name + ".partial")
    if os.path.lexists(partial) and not runner.dry_run:
        if not _is_our_partial(partial):
            raise WouldLoseData(
                f"{partial} exists and is not a clone tritondev started; it is left alone",
                fix=f"move {partial} away (or delete it if it is not yours), then run the command again",
            )
        # Left by an interrupted clone of ours: only objects we fetched, nothing of the user's.
        shutil.rmtree(partial)
    if not runner.dry_run:
        # Marked before git writes anything into it, so a kill at any moment leaves a folder we know.
        partial.mkdir(parents=True)
        writes.replace_text(partial / PARTIAL_MARK, "a clone tritondev setup has not finished\n")
    runner.run(["git", "init", "--quiet", str(partial)], step=step)
    # .git/config keeps the URL without credentials; the fetch below uses the full one once.
    runner.run(["git", "-C", str(partial), "remote", "add", "origin", "--", without_credentials(url)], step=step)
    fetch = _fetch_args(url, commit, shallow=history == "pin", full_history=False)
    env = credential_env(url) if history == "blobless" else {}
    if history == "blobless":
        fetch = blobless_fetch(commit, f"{PIN_REF_PREFIX}{commit}")
    elif history == "full":
        fetch = [
            "fetch",
            "--tags",
            "--no-write-fetch-head",
            "--end-of-options",
            url,
            "+refs/heads/*:refs/remotes/origin/*",
            f"+{commit}:{PIN_REF_PREFIX}{commit}",
        ]
    runner.run(
        ["git", "-C", str(partial), *fetch],
        step=step,
        env=env,
        timeout=6 * 3600,
        fix=f"check that {redact(url)} is reachable and has commit {commit}",
    )
    target = ["-b", branch_for(commit), commit] if history == "blobless" else ["--detach", commit]
    runner.run(  # a partial clone fetches the blobs of the pin's tree here, from origin
        ["git", "-C", str(partial), "-c", "advice.detachedHead=false", "checkout", "--quiet", *target],
        step=step,
        env=env,
        timeout=6 * 3600,
    )
    if not runner.dry_run:
        if dest.is_dir():
            dest.rmdir()  # empty, and a real folder (checked by the caller)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, dest)
        # The mark goes last: a run cut short before this point finds a marked .partial, or a marked
        # clone in place (_finish_cut_short_rename), and recovers either.
        (dest / PARTIAL_MARK).unlink()
    head = commit if not runner.dry_run else ""
    return CheckoutReport(dest, commit, head, (), (), "cloned")


def _is_our_partial(partial: Path) -> bool:
    """A folder holding our mark (a regular file, not a link), or an empty one: nothing of the user's."""
    if partial.is_symlink() or not partial.is_dir():
        return False
    mark = partial / PARTIAL_MARK
    return (mark.exists() and writes.describe(mark) is None) or not any(partial.iterdir())


def _finish_cut_short_rename(dest: Path) -> None:
    """A clone renamed into place whose mark was not removed yet (a run cut short right there): it is
    ours and complete; removing the mark finishes it."""
    mark = dest / PARTIAL_MARK
    if (
        not dest.is_symlink()
        and dest.is_dir()
        and (dest / ".git").is_dir()
        and mark.exists()
        and writes.describe(mark) is None
    ):
        mark.unlink()


def _update_existing(
    name: str, url: str, commit: str, dest: Path, runner: Runner, step: str, allow_dirty: bool, full_history: bool
) -> CheckoutReport:
    head, dirty, local = inspect_checkout(dest, commit, runner, step)
    if dirty or local:
        if allow_dirty:
            return CheckoutReport(dest, commit, head, dirty, local, "dirty-kept")
        parts = []
        if dirty:
            parts.append(f"changed or untracked files: {shown_names(dirty)}")
        if local:
            parts.append(f"commits found on no remote, tag or pin: {shown_names(tuple(c[:12] for c in local))}")
        raise DirtyCheckout(
            f"{name} checkout {dest} has local work ({'; '.join(parts)}); nothing was changed",
            fix="commit and push, or move the work away yourself; or pass --allow-dirty to build it as it stands",
        )
    shallow = _is_shallow(dest, runner, step)
    if head == commit and not (full_history and shallow):
        _remember_pin(dest, commit, runner, step)
        return CheckoutReport(dest, commit, head, (), (), "up-to-date")
    present = has_commit(dest, commit, runner, step)
    if present and not runner.dry_run:
        # Before anything is written, .git included, when the commit's tree is already here.
        refuse_overwriting_ignored(name, dest, commit, runner, step)
    partial = is_partial(dest, runner, step) and origin_url(dest, runner, step) == without_credentials(url)
    env = credential_env(url) if partial else {}
    if not present or full_history:
        fetch = _fetch_args(url, commit, shallow=shallow, full_history=full_history)
        if partial and not full_history:  # through the promisor remote: its blob filter applies
            fetch = ["fetch", "--no-write-fetch-head", "origin", f"+{commit}:{PIN_REF_PREFIX}{commit}"]
        runner.run(
            ["git", "-C", str(dest), *fetch],
            step=step,
            env=env,
            timeout=6 * 3600,
            fix=f"check that {redact(url)} is reachable and has commit {commit}",
        )
        if not present and not runner.dry_run:
            # The fetch added objects and the pin's ref to .git; the working tree is still untouched.
            refuse_overwriting_ignored(name, dest, commit, runner, step)
    else:
        _remember_pin(dest, commit, runner, step)
    # A checkout tritondev made with history is on its branch (tritondev/<pin8>), made when missing.
    guarded_move(
        name, dest, commit, runner, step, branch_for(commit) if partial else None, create_branch=partial, env=env
    )
    return CheckoutReport(dest, commit, commit if not runner.dry_run else head, (), (), "fetched")


def _remember_pin(dest: Path, commit: str, runner: Runner, step: str) -> None:
    ref = f"{PIN_REF_PREFIX}{commit}"
    result = runner.capture(["git", "-C", str(dest), "rev-parse", "--verify", "--quiet", ref], step=step, check=False)
    if result.returncode != 0:
        runner.run(["git", "-C", str(dest), "update-ref", ref, commit], step=step)
