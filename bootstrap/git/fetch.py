"""Read a few files of a repository at one ref, moving as little data as possible.

Three kinds of source (chosen by `open_reader` from a validated RepoUrl):
- a local repository (a checkout, a bare mirror): `git ls-tree` / `git cat-file`, nothing fetched
  (bootstrap.git.blobs);
- any git URL: one commit at depth 1, trees only, into a bare repository (bootstrap.git.blobs);
- raw files over HTTPS (bootstrap.git.rawfiles). https://github.com/OWNER/REPO URLs are read
  this way first and fall back to git when raw.githubusercontent.com cannot be reached.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bootstrap.core.errors import ConfigError, ExternalError, Offline
from bootstrap.core.process.runner import Runner
from bootstrap.git.blobs import GitFetchReader, LocalRepoReader, RefNotFound, git_dir_of
from bootstrap.git.rawfiles import RawReader, raw_base_for_github
from bootstrap.git.refs import RepoUrl

# What open_reader's callers also use, importable from here.
__all__ = ["FallbackReader", "FileReader", "LocalRepoReader", "RefNotFound", "git_dir_of", "open_reader"]


class FileReader(Protocol):
    """Files of one repository at one ref."""

    @property
    def description(self) -> str: ...  # where the files come from, e.g. "git://host/pytorch.git at v2.5.1"

    @property
    def commit(self) -> str | None: ...  # the ref resolved to a commit id, when the source can say

    def read(self, path: str) -> str | None: ...  # None: no such file at that ref


@dataclass
class FallbackReader:
    """Raw files first; on a network failure, the same files through git (once and for good)."""

    primary: RawReader
    make_secondary: Callable[[], FileReader]
    _active: FileReader | None = None
    note: str = ""

    @property
    def description(self) -> str:
        return self._current().description

    @property
    def commit(self) -> str | None:
        return self._current().commit

    def _current(self) -> FileReader:
        return self._active if self._active is not None else self.primary

    def read(self, path: str) -> str | None:
        if self._active is not None:
            return self._active.read(path)
        try:
            return self.primary.read(path)
        except ExternalError as exc:
            self.note = f"raw download failed ({exc.message}); read through git instead"
            try:
                self._active = self.make_secondary()
                return self._active.read(path)
            except Offline as second:
                if not isinstance(exc, Offline):
                    raise
                # Neither name resolves: one line that says both, not only the last one tried.
                hosts = tuple(dict.fromkeys((*exc.hosts, *second.hosts)))
                raise Offline(
                    f"cannot resolve {' nor '.join(hosts)} (raw download, then git): no network, or no DNS for them",
                    hosts=hosts,
                    fix=second.fix,
                ) from None


# -- choosing a reader ---------------------------------------------------------------------------


@contextmanager
def open_reader(
    location: RepoUrl,
    ref: str,
    runner: Runner,
    *,
    cache: Path | None = None,
    borrow_from: Path | None = None,
    step: str = "pins",
    raw_first: bool = True,
) -> Iterator[FileReader]:
    """A reader of `location` at `ref` (validated by the caller).

    cache: the bare repository git URLs are fetched into (kept); None uses a temporary one that is
    removed afterwards, optionally borrowing objects from `borrow_from` without writing there.
    """
    if location.kind == "path":
        path = Path(location.url)
        git_dir = git_dir_of(path, runner)
        if git_dir is None:
            raise ConfigError(
                f"{path} is not a git repository",
                fix="point the URL option at a checkout or bare mirror, or at a remote URL",
            )
        yield LocalRepoReader(path, git_dir, ref, runner, step)
        return
    if location.kind == "raw":
        yield RawReader(location.url, ref, notify=retry_notices(runner))
        return
    with _bare_repo(cache) as repo:

        def through_git() -> FileReader:
            return GitFetchReader(location.url, ref, repo, runner, step, borrow_from=borrow_from)

        slug = location.github_slug
        if slug is not None and raw_first:
            yield FallbackReader(RawReader(raw_base_for_github(slug), ref, notify=retry_notices(runner)), through_git)
        else:
            yield through_git()


def retry_notices(runner: Runner) -> Callable[[str], None] | None:
    """Where a download's retries are told as they happen: with -v, beside the echoed commands."""
    return runner.echo if runner.verbose and not runner.silent else None


@contextmanager
def _bare_repo(cache: Path | None) -> Iterator[Path]:
    if cache is not None:
        created = [folder for folder in (cache.parent, cache) if not folder.exists()]
        cache.parent.mkdir(parents=True, exist_ok=True)
        try:
            yield cache
        except BaseException:
            # A first fetch that failed (offline, unknown ref) leaves no empty repository behind.
            if cache in created:
                shutil.rmtree(cache, ignore_errors=True)
            if cache.parent in created:
                try:
                    cache.parent.rmdir()  # only when nothing else was put there
                except OSError:
                    pass
            raise
        return
    tmp = Path(tempfile.mkdtemp(prefix="tritondev-pins-"))
    try:
        yield tmp / "repo.git"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
