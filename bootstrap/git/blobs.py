"""Files of a repository at one ref, read through git: a local repository (nothing fetched), or one
commit of a remote fetched at depth 1 with `--filter=blob:none` (trees only; the few blobs read are
fetched on demand): never a full clone of PyTorch just to read a pin.
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import CommandFailed, ConfigError, ExternalError
from bootstrap.core.io import writes
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact, without_credentials
from bootstrap.git.rawfiles import offline
from bootstrap.git.refs import FETCHED_REF_PREFIX, SHA_RE, is_commit_like


class RefNotFound(ConfigError):
    """The repository has no such tag, branch or commit (exit 2: the ref given is wrong)."""


def _git(runner: Runner, args: list[str], step: str, *, check: bool = True, timeout: float = 600) -> str:
    return runner.capture(["git", *args], step=step, check=check, timeout=timeout).stdout


# -- local repositories -------------------------------------------------------------------------


def git_dir_of(path: Path, runner: Runner) -> Path | None:
    """The git directory of a checkout or bare repository at `path`, or None when it is neither."""
    if not path.is_dir():
        return None
    result = runner.capture(["git", "-C", str(path), "rev-parse", "--absolute-git-dir"], step="pins", check=False)
    if result.returncode != 0:
        return None
    return Path(result.stdout.strip())


def _read_blob(
    runner: Runner, git_dir: Path, commit: str, path: str, step: str, config: tuple[str, ...] = ()
) -> str | None:
    """A file at `commit` in the repository `git_dir`; symlinks (PyTorch's old .github pin) followed.

    config: `-c key=value` arguments for git (the remote's URL where it is not kept on disk)."""
    for _ in range(5):  # bounded: a symlink loop must not hang us
        listing = _git(runner, [*config, "--git-dir", str(git_dir), "ls-tree", commit, "--", path], step).strip()
        if not listing:
            return None
        meta, _, _name = listing.partition("\t")
        mode, kind, oid = meta.split()
        if kind != "blob":
            return None
        text = _git(runner, [*config, "--git-dir", str(git_dir), "cat-file", "blob", oid], step)
        if mode != "120000":
            return text
        path = posixpath.normpath(posixpath.join(posixpath.dirname(path), text.strip()))
        if path.startswith(".."):
            return None
    return None


def read_regular_files(
    runner: Runner, git_dir: Path, commit: str, paths: Sequence[str], step: str
) -> dict[str, str | None]:
    """Files at `commit` with two git commands for all of them (ls-tree, then cat-file --batch), read as
    `_read_blob` reads each: None for a path the commit lacks or that is no file. A symlink is left out,
    for `_read_blob` to follow."""
    listing = _git(runner, ["--git-dir", str(git_dir), "ls-tree", "-z", commit, "--", *paths], step)
    files: dict[str, str | None] = dict.fromkeys(paths)
    blobs: dict[str, str] = {}  # object id -> path
    for record in filter(None, listing.split("\0")):
        meta, _, name = record.partition("\t")
        mode, kind, oid = meta.split()
        if mode == "120000":
            del files[name]
        elif kind == "blob":
            blobs[oid] = name
    if blobs:
        # Each object is announced by a header line holding a token no file contains: the contents are
        # what lies between, whatever bytes they hold (sizes would count bytes, and this is text).
        token = f"@@tritondev-{uuid.uuid4().hex}"
        out = runner.capture(
            ["git", "--git-dir", str(git_dir), "cat-file", f"--batch={token} %(objectname)"],
            step=step,
            input_text="".join(f"{oid}\n" for oid in blobs),
            timeout=600,
        ).stdout
        for chunk in out.split(f"{token} ")[1:]:
            oid, _, text = chunk.partition("\n")
            files[blobs[oid]] = text[:-1]  # cat-file ends each object with a newline of its own
    return files


def resolve_local_ref(runner: Runner, git_dir: Path, ref: str, step: str) -> str | None:
    """`ref` (tag, branch, remote branch, commit) as a commit id in a local repository, or None."""
    candidates = (
        [ref] if is_commit_like(ref) else [f"refs/tags/{ref}", f"refs/heads/{ref}", f"refs/remotes/origin/{ref}", ref]
    )
    for candidate in candidates:
        result = runner.capture(
            [
                "git",
                "--git-dir",
                str(git_dir),
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                f"{candidate}^{{commit}}",
            ],
            step=step,
            check=False,
        )
        if result.returncode == 0 and SHA_RE.match(result.stdout.strip()):
            return result.stdout.strip()
    return None


@dataclass
class LocalRepoReader:
    path: Path
    git_dir: Path
    ref: str
    runner: Runner
    step: str = "pins"
    commit: str | None = None
    _read: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.commit = resolve_local_ref(self.runner, self.git_dir, self.ref, self.step)
        if self.commit is None:
            raise RefNotFound(
                f"{self.ref!r} is not a tag, branch or commit of the repository at {self.path}",
                fix="check the ref, or update that repository (git fetch) so that it has it",
            )

    @property
    def description(self) -> str:
        return f"{self.path} at {self.ref}"

    def read(self, path: str) -> str | None:
        assert self.commit is not None
        if path in self._read:
            return self._read[path]
        return _read_blob(self.runner, self.git_dir, self.commit, path, self.step)

    def read_ahead(self, paths: Sequence[str]) -> None:
        """Read `paths` at once (two git commands, not two per file) for the reads that follow."""
        assert self.commit is not None
        self._read.update(read_regular_files(self.runner, self.git_dir, self.commit, paths, self.step))


# -- git URLs: one commit, trees only -----------------------------------------------------------


@dataclass
class GitFetchReader:
    """One commit of a remote repository fetched at depth 1 without blobs into a bare repository."""

    url: str
    ref: str
    repo: Path  # bare repository used as cache (created when missing)
    runner: Runner
    step: str = "pins"
    borrow_from: Path | None = None  # an existing bare cache whose objects may be reused, read-only
    commit: str | None = None

    def __post_init__(self) -> None:
        self._prepare()
        self.commit = self._fetch()

    @property
    def description(self) -> str:
        return f"{redact(self.url)} at {self.ref}"

    def _prepare(self) -> None:
        g = ["--git-dir", str(self.repo)]
        if not (self.repo / "HEAD").is_file():
            _git(self.runner, ["init", "--bare", "--quiet", str(self.repo)], self.step)
        if self.borrow_from is not None and (self.borrow_from / "objects").is_dir():
            alternates = self.repo / "objects" / "info" / "alternates"
            writes.replace_text(alternates, str((self.borrow_from / "objects").absolute()) + "\n", verbatim=True)
        # The URL is set on every use: the user may point the same cache at a mirror next time.
        # Promisor settings let `cat-file` fetch the few blobs we read, on demand. A URL with a
        # password or token is kept without it; git gets the full one on each call (`_remote`).
        for key, value in (
            ("remote.origin.url", without_credentials(self.url)),
            ("remote.origin.promisor", "true"),
            ("remote.origin.partialclonefilter", "blob:none"),
        ):
            _git(self.runner, [*g, "config", key, value], self.step)

    @property
    def _remote(self) -> tuple[str, ...]:
        """`-c remote.origin.url=URL` when the URL on disk lacks the credentials this one has."""
        kept = without_credentials(self.url)
        return () if kept == self.url else ("-c", f"remote.origin.url={self.url}")

    def _fetch(self) -> str:
        args = [
            *self._remote,
            "--git-dir",
            str(self.repo),
            "fetch",
            "--quiet",
            "--depth",
            "1",
            "--filter=blob:none",
            "--no-tags",
            "--no-write-fetch-head",
            "origin",
            "--end-of-options",
        ]
        target = f"{FETCHED_REF_PREFIX}{_ref_key(self.ref)}"
        result = self.runner.capture(["git", *args, f"+{self.ref}:{target}"], step=self.step, check=False, timeout=900)
        if result.returncode != 0:
            raise _fetch_error(self.url, self.ref, result.stderr or result.stdout, result.log_path)
        commit = _git(
            self.runner, ["--git-dir", str(self.repo), "rev-parse", "--verify", f"{target}^{{commit}}"], self.step
        ).strip()
        return commit

    def read(self, path: str) -> str | None:
        assert self.commit is not None
        try:
            return _read_blob(self.runner, self.repo, self.commit, path, self.step, self._remote)
        except CommandFailed as exc:
            # The blob is fetched on demand; a network failure here is the same as one in fetch.
            raise _fetch_error(self.url, self.ref, "\n".join(exc.tail), exc.log_path) from None


def _ref_key(ref: str) -> str:
    return ref.replace("/", "--")


def _fetch_error(url: str, ref: str, output: str, log: Path | None) -> Exception:
    text = output.strip()
    last = redact(text.splitlines()[-1]) if text else "no output"
    lowered = text.lower()
    if "couldn't find remote ref" in lowered or "not our ref" in lowered or "no such remote ref" in lowered:
        return RefNotFound(
            f"{redact(url)} has no ref or commit {ref!r}",
            fix="check the tag, branch or commit id (git ls-remote URL lists them)",
        )
    where = f" (log: {log})" if log else ""
    if "could not resolve host" in lowered or "name or service not known" in lowered:
        return offline(url, f"git fetch of {ref}")
    return ExternalError(
        f"cannot fetch {ref} from {redact(url)}: {last}{where}",
        fix="check the network and the URL; offline, point --pytorch-url/--triton-url at a local"
        " repository or use --mirror DIR",
    )
