"""Read a few files of a repository at one ref, moving as little data as possible.

Three kinds of source (chosen by `open_reader` from a validated RepoUrl):
- a local repository (a checkout, a bare mirror): `git ls-tree` / `git cat-file`, nothing fetched;
- any git URL: a bare repository gets that one commit at depth 1 with `--filter=blob:none`
  (trees only; the few blobs read are then fetched on demand): never a full clone of PyTorch just
  to read a pin;
- raw files over HTTPS (`<base>/<ref>/<path>`, e.g. raw.githubusercontent.com), with timeouts,
  retries with backoff and a clear error when offline. https://github.com/OWNER/REPO URLs are read
  this way first and fall back to git when raw.githubusercontent.com cannot be reached.
"""

from __future__ import annotations

import posixpath
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bootstrap.core.errors import CommandFailed, ConfigError, ExternalError
from bootstrap.core.redact import redact
from bootstrap.core.runner import Runner
from bootstrap.git.refs import SHA_RE, RepoUrl, is_commit_like

if TYPE_CHECKING:
    import requests

RAW_GITHUB = "https://raw.githubusercontent.com"

# Network policy for raw downloads: (connect, read) timeouts in seconds, and retries with
# exponential backoff on connection errors, timeouts, 429 and 5xx.
TIMEOUT = (10.0, 30.0)
RETRIES = 3
BACKOFF = 0.5
_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_FILE_BYTES = 1 << 20  # pin files are one line; anything bigger is not one


class RefNotFound(ConfigError):
    """The repository has no such tag, branch or commit (exit 2: the ref given is wrong)."""


class FileReader(Protocol):
    """Files of one repository at one ref."""

    @property
    def description(self) -> str: ...  # where the files come from, e.g. "git://host/pytorch.git at v2.5.1"

    @property
    def commit(self) -> str | None: ...  # the ref resolved to a commit id, when the source can say

    def read(self, path: str) -> str | None: ...  # None: no such file at that ref


def _git(runner: Runner, args: list[str], step: str, *, check: bool = True, timeout: float = 600) -> str:
    return runner.run(["git", *args], step=step, probe=True, check=check, timeout=timeout).stdout


# -- local repositories -------------------------------------------------------------------------


def git_dir_of(path: Path, runner: Runner) -> Path | None:
    """The git directory of a checkout or bare repository at `path`, or None when it is neither."""
    if not path.is_dir():
        return None
    result = runner.run(
        ["git", "-C", str(path), "rev-parse", "--absolute-git-dir"], step="pins", probe=True, check=False
    )
    if result.returncode != 0:
        return None
    return Path(result.stdout.strip())


def _read_blob(runner: Runner, git_dir: Path, commit: str, path: str, step: str) -> str | None:
    """A file at `commit` in the repository `git_dir`; symlinks (PyTorch's old .github pin) followed."""
    for _ in range(5):  # bounded: a symlink loop must not hang us
        listing = _git(runner, ["--git-dir", str(git_dir), "ls-tree", commit, "--", path], step).strip()
        if not listing:
            return None
        meta, _, _name = listing.partition("\t")
        mode, kind, oid = meta.split()
        if kind != "blob":
            return None
        text = _git(runner, ["--git-dir", str(git_dir), "cat-file", "blob", oid], step)
        if mode != "120000":
            return text
        path = posixpath.normpath(posixpath.join(posixpath.dirname(path), text.strip()))
        if path.startswith(".."):
            return None
    return None


def resolve_local_ref(runner: Runner, git_dir: Path, ref: str, step: str) -> str | None:
    """`ref` (tag, branch, remote branch, commit) as a commit id in a local repository, or None."""
    candidates = (
        [ref] if is_commit_like(ref) else [f"refs/tags/{ref}", f"refs/heads/{ref}", f"refs/remotes/origin/{ref}", ref]
    )
    for candidate in candidates:
        result = runner.run(
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
            probe=True,
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
        return _read_blob(self.runner, self.git_dir, self.commit, path, self.step)


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
            alternates.parent.mkdir(parents=True, exist_ok=True)
            alternates.write_text(str((self.borrow_from / "objects").absolute()) + "\n", encoding="utf-8")
        # The URL is set on every use: the user may point the same cache at a mirror next time.
        # Promisor settings let `cat-file` fetch the few blobs we read, on demand.
        for key, value in (
            ("remote.origin.url", self.url),
            ("remote.origin.promisor", "true"),
            ("remote.origin.partialclonefilter", "blob:none"),
        ):
            _git(self.runner, [*g, "config", key, value], self.step)

    def _fetch(self) -> str:
        args = [
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
        target = f"refs/tritondev/fetched/{_ref_key(self.ref)}"
        result = self.runner.run(
            ["git", *args, f"+{self.ref}:{target}"], step=self.step, probe=True, check=False, timeout=900
        )
        if result.returncode != 0:
            raise _fetch_error(self.url, self.ref, result.stderr or result.stdout, result.log_path)
        commit = _git(
            self.runner, ["--git-dir", str(self.repo), "rev-parse", "--verify", f"{target}^{{commit}}"], self.step
        ).strip()
        return commit

    def read(self, path: str) -> str | None:
        assert self.commit is not None
        try:
            return _read_blob(self.runner, self.repo, self.commit, path, self.step)
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
    return ExternalError(
        f"cannot fetch {ref} from {redact(url)}: {last}{where}",
        fix="check the network and the URL; offline, point --pytorch-url/--triton-url at a local"
        " repository or use --mirror DIR",
    )


# -- raw files over HTTPS ------------------------------------------------------------------------


@dataclass
class RawReader:
    """Files at `<base>/<ref>/<path>` (raw.githubusercontent.com layout), via requests."""

    base: str
    ref: str
    retries: int = RETRIES
    backoff: float = BACKOFF
    timeout: tuple[float, float] = TIMEOUT
    commit: str | None = None
    _session: requests.Session | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if is_commit_like(self.ref):
            self.commit = self.ref.lower()

    @property
    def description(self) -> str:
        return f"{redact(self.base)} at {self.ref}"

    def _session_for(self) -> requests.Session:
        if self._session is None:
            from urllib.parse import urlsplit

            import requests

            session = requests.Session()
            host = urlsplit(self.base).hostname or ""
            # A local test server must not be sent through a proxy from the environment.
            session.trust_env = host not in ("127.0.0.1", "localhost", "::1")
            session.headers["User-Agent"] = "tritondev"
            self._session = session
        return self._session

    def url_of(self, path: str) -> str:
        return f"{self.base}/{self.ref}/{path}"

    def read(self, path: str) -> str | None:
        import requests

        url = self.url_of(path)
        problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                response = self._session_for().get(url, timeout=self.timeout, allow_redirects=True, stream=True)
            except requests.exceptions.RequestException as exc:
                problem = _describe_network_error(exc)
                continue
            with response:
                if response.status_code == 404:
                    return None
                if response.status_code in _RETRY_STATUS:
                    problem = f"HTTP {response.status_code}"
                    continue
                if response.status_code != 200:
                    raise ExternalError(
                        f"downloading {redact(url)} failed: HTTP {response.status_code}",
                        fix="check the URL and that the server allows anonymous reads",
                    )
                body = _read_body(response)
            if body is None:  # the server closed the connection mid-body: an interrupted download
                problem = "the connection was closed before the whole file arrived"
                continue
            if len(body) > _MAX_FILE_BYTES:
                raise ExternalError(f"{redact(url)} is larger than 1 MiB: not a pin file", fix="check the URL")
            return bytes(body).decode("utf-8", errors="replace")
        raise ExternalError(
            f"cannot download {redact(url)} after {self.retries + 1} attempts: {problem}",
            fix="check the network (offline?); or point --pytorch-url/--triton-url at a local repository,"
            " or use --mirror DIR",
        )


def _read_body(response: requests.Response) -> bytes | None:
    """The body (at most 1 MiB + 1 byte), or None when it arrived incomplete."""
    import urllib3

    try:
        body = bytes(response.raw.read(_MAX_FILE_BYTES + 1, decode_content=True))
    except (urllib3.exceptions.HTTPError, OSError):
        return None
    announced = response.headers.get("Content-Length", "")
    # An older urllib3 returns a short body without complaint; the announced length tells.
    short = len(body) <= _MAX_FILE_BYTES and len(body) < int(announced) if announced.isdigit() else False
    if short and "Content-Encoding" not in response.headers:
        return None
    return body


def _describe_network_error(exc: Exception) -> str:
    import requests

    if isinstance(exc, requests.exceptions.Timeout):
        return "timed out"
    if isinstance(exc, requests.exceptions.SSLError):
        return "TLS error"
    if isinstance(exc, requests.exceptions.ConnectionError):
        return "cannot connect (offline, or the host is unreachable)"
    return type(exc).__name__


def raw_base_for_github(slug: str) -> str:
    return f"{RAW_GITHUB}/{slug}"


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
            self._active = self.make_secondary()
            return self._active.read(path)


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
        yield RawReader(location.url, ref)
        return
    with _bare_repo(cache) as repo:

        def through_git() -> FileReader:
            return GitFetchReader(location.url, ref, repo, runner, step, borrow_from=borrow_from)

        slug = location.github_slug
        if slug is not None and raw_first:
            yield FallbackReader(RawReader(raw_base_for_github(slug), ref), through_git)
        else:
            yield through_git()


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
