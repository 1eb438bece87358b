"""Checkouts of Triton and LLVM at their exact pinned commits, without ever losing local work.

- Least transfer: a new checkout fetches only the pinned commit at depth 1 (full history only with
  --full-history); an existing checkout is reused and gets only the objects it lacks (a full
  clone is never made shallow).
- Never destructive: a checkout with modified or staged files, untracked files (not ignored), or
  commits found on no remote, tag or earlier pin is never reset, stashed or deleted. Setup stops
  with exit 6 naming them; with --allow-dirty it builds the checkout as it stands and reports how
  it differs from the pin. The dirtiness check runs before anything is written, and uses
  `git --no-optional-locks status` so that not even the index file is touched; it is as fast as git
  can make it on a tree of LLVM's size (bootstrap.git.local_changes) and names every file.
- Interrupt-safe: a new clone is assembled in `<dest>.partial` and renamed into place at the end.
- Under --dry-run (runner.dry_run) nothing is changed: reads run, writes are only shown.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ConfigError, DirtyCheckout, WouldLoseData
from bootstrap.core.redact import redact
from bootstrap.core.runner import Runner
from bootstrap.core.settings import Settings
from bootstrap.git.local_changes import local_changes
from bootstrap.git.refs import validate_commit, validate_repo_url, without_credentials

# Checkout name -> settings field holding its URL.
URL_SETTINGS = {"pytorch": "pytorch_url", "triton": "triton_url", "llvm-project": "llvm_url"}
# Where each pinned commit is remembered inside a checkout, so that an earlier pin (often on a
# release branch we never fetched as a branch) is not mistaken for a local commit.
PIN_REF_PREFIX = "refs/tritondev/pins/"
# In <dest>.partial while a new clone is assembled there: only a folder holding it (or an empty one)
# is ever deleted as the leftover of an interrupted clone.
PARTIAL_MARK = ".tritondev-partial-clone"
_SHOWN_NAMES = 20


def repository_url(settings: Settings, name: str, default: str) -> str:
    """The URL (or path) `name` ("pytorch", "triton", "llvm-project") is fetched from.

    An URL the user set (file, environment, option) wins; else `--mirror DIR` gives DIR/<name>.git;
    else `default`.
    """
    field = URL_SETTINGS.get(name)
    if field is not None:
        value = getattr(settings, field)
        if value and settings.source_of(field) != "default":
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


@dataclass(frozen=True)
class CheckoutReport:
    path: Path
    commit: str  # the pin
    head: str  # what the checkout has now (equals commit unless dirty-kept, or "" under dry-run of a new clone)
    dirty_files: tuple[str, ...]  # modified, staged or untracked (not ignored) files, as `git status` names them
    local_commits: tuple[str, ...]  # commits in HEAD found on no remote, tag or earlier pin
    action: str  # "cloned" | "fetched" | "up-to-date" | "dirty-kept"

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
            parts.append(f"{len(self.dirty_files)} changed or untracked file(s): {_names(self.dirty_files)}")
        if self.local_commits:
            parts.append(
                f"{len(self.local_commits)} local commit(s): {_names(tuple(c[:12] for c in self.local_commits))}"
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


def _git(runner: Runner, repo: Path, *args: str, step: str, probe: bool, check: bool = True) -> str:
    result = runner.run(["git", "-C", str(repo), *args], step=step, probe=probe, check=check, timeout=3600)
    return result.stdout if result.returncode == 0 else ""


def inspect_checkout(
    dest: Path, commit: str, runner: Runner, step: str
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(HEAD, dirty files, local commits) of an existing checkout; reads only, writes nothing."""
    head = _git(
        runner, dest, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", step=step, probe=True, check=False
    ).strip()
    dirty = local_changes(dest, runner, step)
    local: tuple[str, ...] = ()
    if head:
        exclude = ["--remotes", "--tags", f"--glob={PIN_REF_PREFIX}*"]
        if has_commit(dest, commit, runner, step):
            exclude.append(commit)
        out = _git(runner, dest, "rev-list", "--max-count=50", head, "--not", *exclude, step=step, probe=True)
        local = tuple(line for line in out.split() if line)
    return head, dirty, local


def has_commit(repo: Path, commit: str, runner: Runner, step: str) -> bool:
    result = runner.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{commit}^{{commit}}"], step=step, probe=True, check=False
    )
    return result.returncode == 0


def _is_repo_root(dest: Path, runner: Runner, step: str) -> bool:
    result = runner.run(["git", "-C", str(dest), "rev-parse", "--show-toplevel"], step=step, probe=True, check=False)
    if result.returncode != 0:
        return False
    return Path(result.stdout.strip()).resolve() == dest.resolve()


def _is_shallow(dest: Path, runner: Runner, step: str) -> bool:
    return _git(runner, dest, "rev-parse", "--is-shallow-repository", step=step, probe=True).strip() == "true"


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


def _names(files: tuple[str, ...]) -> str:
    shown = ", ".join(files[:_SHOWN_NAMES])
    return shown + (f" and {len(files) - _SHOWN_NAMES} more" if len(files) > _SHOWN_NAMES else "")


def ensure_checkout(
    name: str,
    url: str,
    commit: str,
    dest: Path,
    runner: Runner,
    *,
    allow_dirty: bool = False,
    full_history: bool = False,
) -> CheckoutReport:
    """Make `dest` a checkout of `url` at `commit` (detached), reusing what is there.

    Raises DirtyCheckout (exit 6) naming the files or commits when the checkout has local work,
    unless allow_dirty: then it is left exactly as it is and the report says how it differs.
    """
    commit = validate_commit(commit, f"{name} commit")
    location = validate_repo_url(url, f"{name} URL")
    if location.kind == "raw":
        raise ConfigError(f"{name}: a raw-file URL cannot be cloned", fix=f"give a git URL or path for {name}")
    url = location.url
    step = f"checkout-{name}"

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
    return _clone_new(name, url, commit, dest, runner, step, full_history)


def _clone_new(
    name: str, url: str, commit: str, dest: Path, runner: Runner, step: str, full_history: bool
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
        (partial / PARTIAL_MARK).write_text("a clone tritondev setup has not finished\n", encoding="utf-8")
    runner.run(["git", "init", "--quiet", str(partial)], step=step)
    # .git/config keeps the URL without credentials; the fetch below uses the full one once.
    runner.run(["git", "-C", str(partial), "remote", "add", "origin", "--", without_credentials(url)], step=step)
    fetch = _fetch_args(url, commit, shallow=not full_history, full_history=False)
    if full_history:
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
        timeout=6 * 3600,
        fix=f"check that {redact(url)} is reachable and has commit {commit}",
    )
    runner.run(
        ["git", "-C", str(partial), "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit],
        step=step,
    )
    if not runner.dry_run:
        (partial / PARTIAL_MARK).unlink()
        if dest.is_dir():
            dest.rmdir()  # empty (checked by the caller)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, dest)
    head = commit if not runner.dry_run else ""
    return CheckoutReport(dest, commit, head, (), (), "cloned")


def _is_our_partial(partial: Path) -> bool:
    if partial.is_symlink() or not partial.is_dir():
        return False
    return (partial / PARTIAL_MARK).is_file() or not any(partial.iterdir())


def _update_existing(
    name: str, url: str, commit: str, dest: Path, runner: Runner, step: str, allow_dirty: bool, full_history: bool
) -> CheckoutReport:
    head, dirty, local = inspect_checkout(dest, commit, runner, step)
    if dirty or local:
        if allow_dirty:
            return CheckoutReport(dest, commit, head, dirty, local, "dirty-kept")
        parts = []
        if dirty:
            parts.append(f"changed or untracked files: {_names(dirty)}")
        if local:
            parts.append(f"commits found on no remote, tag or pin: {_names(tuple(c[:12] for c in local))}")
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
        _refuse_overwriting_ignored(name, dest, commit, runner, step)
    if not present or full_history:
        runner.run(
            ["git", "-C", str(dest), *_fetch_args(url, commit, shallow=shallow, full_history=full_history)],
            step=step,
            timeout=6 * 3600,
            fix=f"check that {redact(url)} is reachable and has commit {commit}",
        )
        if not present and not runner.dry_run:
            # The fetch added objects and the pin's ref to .git; the working tree is still untouched.
            _refuse_overwriting_ignored(name, dest, commit, runner, step)
    else:
        _remember_pin(dest, commit, runner, step)
    runner.run(
        ["git", "-C", str(dest), "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit],
        step=step,
    )
    return CheckoutReport(dest, commit, commit if not runner.dry_run else head, (), (), "fetched")


def _refuse_overwriting_ignored(name: str, dest: Path, commit: str, runner: Runner, step: str) -> None:
    """git checkout replaces ignored files (and folders of them) at paths the new commit tracks: for
    git they are expendable, for the user they are often work (notes, local configs kept out of git by
    .git/info/exclude). Such files make the move stop with exit 6, naming them; nothing is changed."""
    ignored = _git(runner, dest, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", step=step,
                   probe=True)
    tracked = _git(runner, dest, "ls-tree", "-r", "-z", "--name-only", commit, step=step, probe=True)
    conflicts = overwritten_by_checkout(
        [p for p in ignored.split("\0") if p], [p for p in tracked.split("\0") if p]
    )
    if conflicts:
        raise WouldLoseData(
            f"{name} checkout {dest}: moving to {commit[:12]} would overwrite ignored files that commit tracks"
            f" ({_names(tuple(conflicts))}); nothing was changed",
            fix="move those files away (or commit them), then run again; or pass --allow-dirty to build the"
            " checkout as it stands",
        )


def overwritten_by_checkout(ignored: list[str], tracked: list[str]) -> list[str]:
    """The ignored files a checkout of a tree with the `tracked` files would replace or delete: the
    same path, a path under a file the tree tracks, or a path where the tree has a folder. Pure."""
    files = set(tracked)
    folders = {"/".join(parts[:i]) for parts in (p.split("/") for p in tracked) for i in range(1, len(parts))}
    conflicts = []
    for path in ignored:
        parts = path.rstrip("/").split("/")
        prefixes = ("/".join(parts[:i]) for i in range(1, len(parts)))
        if path in files or path.rstrip("/") in folders or any(prefix in files for prefix in prefixes):
            conflicts.append(path)
    return conflicts


def _remember_pin(dest: Path, commit: str, runner: Runner, step: str) -> None:
    ref = f"{PIN_REF_PREFIX}{commit}"
    result = runner.run(
        ["git", "-C", str(dest), "rev-parse", "--verify", "--quiet", ref], step=step, probe=True, check=False
    )
    if result.returncode != 0:
        runner.run(["git", "-C", str(dest), "update-ref", ref, commit], step=step)
