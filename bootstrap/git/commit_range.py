"""The commits a bisect tests: --good and --bad resolved, the history between them fetched, listed.

Everything is first looked at in a scratch repository outside the workspace (a temporary bare
repository that borrows the checkout's objects through `objects/info/alternates`), so that a bad
--good or --bad (unknown, or good not an ancestor of bad) is refused with nothing changed. Only
once the range is known good is it brought into the checkout (`import_range`): a local fetch from
the scratch repository into refs/tritondev/bisect/{good,bad}.

Least transfer: a ref the checkout already has is not fetched; a shallow checkout (setup fetches
one commit at depth 1) gets the range only: `--shallow-since` one day before --good's commit date
stops the fetch there even if --good is not an ancestor of --bad, and the commits it has (the pin)
are offered as what it already has.

The range is the first-parent history of --bad down to --good (as `git bisect --first-parent`),
oldest first. For Triton, the LLVM pin is read at --good and at every commit that changed a pin
file, which gives the pin of every commit without reading each one.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import CommandFailed, ConfigError, ExternalError, MismatchError, UsageError
from bootstrap.core.io import writes
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact
from bootstrap.git.blobs import LocalRepoReader, git_dir_of
from bootstrap.git.layout import LLVM_BUILD_INFO, LLVM_HASH, LLVM_INFO, llvm_pin
from bootstrap.git.refs import BISECT_REF_PREFIX, PIN_REF_PREFIX, SHA_RE, is_commit_like, validate_ref
from bootstrap.git.worktrees import commit_of

STEP = "bisect-range"
PIN_FILES = (LLVM_INFO, LLVM_HASH, LLVM_BUILD_INFO)
_SHALLOW_MARGIN = 24 * 3600  # a day of clock skew between --good and the first commit after it


@dataclass(frozen=True)
class RangeCommit:
    sha: str
    subject: str

    def to_json(self) -> dict[str, str]:
        return {"commit": self.sha, "subject": self.subject}


@dataclass(frozen=True)
class CommitRange:
    good: str
    bad: str
    commits: tuple[RangeCommit, ...]  # oldest first; the last is --bad
    pins: Mapping[str, str | None] = field(default_factory=dict)  # Triton: commit -> LLVM pin where it changed

    def subject(self, sha: str) -> str:
        return next((c.subject for c in self.commits if c.sha == sha), "")


def pin_at(commits: Sequence[str], good: str, pins: Mapping[str, str | None], sha: str) -> str | None:
    """The LLVM pin of `sha`: that of the newest pin change at or before it (--good's when none). Pure."""
    index = commits.index(sha) if sha in commits else -1
    for earlier in reversed(commits[: index + 1]):
        if earlier in pins:
            return pins[earlier]
    return pins.get(good)


class _Scratch:
    """A temporary bare repository borrowing the checkout's objects (and its shallow boundary)."""

    def __init__(self, root: Path, checkout_git: Path, runner: Runner) -> None:
        self.repo, self.runner = root / "range.git", runner
        self.since: int | None = None  # a shallow checkout: the date the range's history was deepened to
        self.git("init", "--bare", "--quiet", str(self.repo), bare=True)
        alternates = self.repo / "objects" / "info" / "alternates"
        writes.replace_text(alternates, f"{checkout_git / 'objects'}\n", verbatim=True)
        if (checkout_git / "shallow").is_file():
            writes.replace_copy(self.repo / "shallow", checkout_git / "shallow")
        self._borrow_promisor(checkout_git)

    def _borrow_promisor(self, checkout_git: Path) -> None:
        """A blobless checkout's old file contents are on its origin: the scratch repository fetches the
        few it reads (the pin files) from there too, as the checkout itself would."""
        said = self.runner.capture(
            ["git", "--git-dir", str(checkout_git), "config", "--get", "remote.origin.promisor"], step=STEP, check=False
        )
        if said.stdout.strip() != "true":
            return
        url = self.runner.capture(
            ["git", "--git-dir", str(checkout_git), "remote", "get-url", "origin"], step=STEP, check=False
        ).stdout.strip()
        for key, value in (
            ("core.repositoryformatversion", "1"),
            ("extensions.partialClone", "origin"),
            ("remote.origin.url", url),
            ("remote.origin.promisor", "true"),
            ("remote.origin.partialclonefilter", "blob:none"),
        ):
            self.git("config", key, value)

    def git(self, *args: str, bare: bool = False, check: bool = True) -> str:
        argv = ["git", *args] if bare else ["git", "--git-dir", str(self.repo), *args]
        result = self.runner.capture(argv, step=STEP, check=check, timeout=6 * 3600)
        return result.stdout if result.returncode == 0 else ""

    def has(self, sha: str) -> bool:
        return bool(self.git("cat-file", "-t", sha, check=False).strip() == "commit")

    @property
    def shallow(self) -> bool:
        return (self.repo / "shallow").is_file()


@contextmanager
def scratch_repository(checkout: Path, runner: Runner) -> Iterator[_Scratch]:
    git_dir = git_dir_of(checkout, runner)
    if git_dir is None:
        raise UsageError(f"{checkout} is not a git checkout", fix="run `tritondev setup` first")
    root = Path(tempfile.mkdtemp(prefix="tritondev-bisect-"))
    try:
        yield _Scratch(root, git_dir, runner)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _local(runner: Runner, checkout: Path, ref: str) -> str | None:
    for candidate in (f"refs/tags/{ref}", f"refs/heads/{ref}", f"refs/remotes/origin/{ref}", ref):
        sha = commit_of(runner, checkout, candidate, STEP)
        if sha is not None:
            return sha
    return None


def _remote(runner: Runner, url: str, ref: str) -> str | None:
    """`ref` as the remote names it: a tag (peeled), a branch, or a full ref name."""
    result = runner.capture(["git", "ls-remote", "--end-of-options", url, ref], step=STEP, check=False, timeout=600)
    if result.returncode != 0:
        raise ExternalError(
            f"cannot list the refs of {redact(url)}: {(result.stderr or '').strip()[-200:]}",
            fix="check the network and the checkout's origin URL (git remote -v)",
        )
    found: dict[str, str] = {}
    for line in result.stdout.splitlines():
        sha, _, name = line.partition("\t")
        found[name] = sha
    for name in (f"refs/tags/{ref}^{{}}", f"refs/tags/{ref}", f"refs/heads/{ref}", ref):
        if SHA_RE.match(found.get(name, "")):
            return found[name]
    return None


_ANCESTRY = re.compile(r"(?:[~^][0-9]{0,6})*$")  # main~20, v3.4.0^


def split_ref(ref: str, what: str) -> tuple[str, str]:
    """(the name, the name with its ~N/^ suffix) of a --good/--bad value; UsageError (exit 2) when it
    is no ref git could be given. Pure: it runs before anything else looks at the workspace."""
    suffix = _ANCESTRY.search(ref.strip())
    base = ref.strip()[: suffix.start()] if suffix else ref.strip()
    try:
        base = validate_ref(base, what)
    except ConfigError as exc:
        raise UsageError(exc.message, fix="give a tag, a branch or a commit id, optionally with ~N (main~20)") from None
    return base, base + (suffix.group(0) if suffix else "")


def resolve(runner: Runner, checkout: Path, url: str, ref: str, what: str) -> str:
    """The commit `ref` names: in the checkout, else on the remote (a full commit id is taken as is).
    `~N` and `^` suffixes are read in the checkout only."""
    base, ref = split_ref(ref, what)
    sha = _local(runner, checkout, ref)
    if sha is None and is_commit_like(ref):
        sha = ref.lower()
    if sha is None and ref != base:
        raise UsageError(
            f"{what} {ref!r}: a ref with ~N or ^ is read in the checkout {checkout}, which does not have {base!r}",
            fix="give the commit id itself, or a tag or branch name without ~N",
        )
    if sha is None:
        sha = _remote(runner, url, ref)
    if sha is None:
        raise UsageError(
            f"{what} {ref!r} is not a tag, branch or commit of {checkout} or {redact(url)}",
            fix="give a tag, a branch, or a full 40-hex commit id (an abbreviated one only when the checkout has it)",
        )
    return sha


def _fetch(scratch: _Scratch, url: str, sha: str, ref: str, what: str, since: int | None) -> None:
    depth = [f"--shallow-since={since}"] if since is not None and scratch.shallow else []
    if not depth and scratch.shallow:
        depth = ["--depth", "1"]
    try:
        scratch.git(
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", *depth, "--end-of-options", url, f"+{sha}:{ref}"
        )
    except CommandFailed as exc:
        text = "\n".join(exc.tail).lower()
        if "not our ref" in text or "couldn't find remote ref" in text or "no such remote ref" in text:
            raise UsageError(
                f"{what} {sha} is not a commit of {redact(url)}",
                fix="check the commit id (git log in the checkout, or on the remote)",
            ) from None
        raise ExternalError(
            f"cannot fetch {sha[:12]} from {redact(url)}: {(exc.tail or ('no output',))[-1]}",
            fix="check the network and the checkout's origin URL (git remote -v)",
        ) from None


def fetch_range(scratch: _Scratch, url: str, good: str, bad: str) -> None:
    """Bring --good and the first-parent history from --bad down to it into the scratch repository.

    Both commits first (one at depth 1 each when missing); a shallow repository is then deepened from
    --bad back to a day before --good's date, which is the whole range when --good is an ancestor and
    no more than that range's dates when it is not."""
    for sha, name in ((good, "good"), (bad, "bad")):
        if not scratch.has(sha):
            _fetch(scratch, url, sha, BISECT_REF_PREFIX + name, f"--{name}", None)
        scratch.git("update-ref", BISECT_REF_PREFIX + name, sha)
    if not scratch.shallow:
        return
    good_date, bad_date = (int(scratch.git("log", "-1", "--format=%ct", sha).strip() or 0) for sha in (good, bad))
    if bad_date < good_date - _SHALLOW_MARGIN:
        raise _not_ancestor(good, bad)
    scratch.since = good_date - _SHALLOW_MARGIN
    _fetch(scratch, url, bad, BISECT_REF_PREFIX + "bad", "--bad", scratch.since)


def _not_ancestor(good: str, bad: str) -> UsageError:
    return UsageError(
        f"--good {good[:12]} is not an ancestor of --bad {bad[:12]}",
        fix="--good is an older commit that passes, --bad a newer one that fails (are they swapped?)",
    )


def list_range(scratch: _Scratch, good: str, bad: str, *, triton: bool) -> CommitRange:
    """The commits from --good (excluded) to --bad, oldest first; for Triton with the LLVM pins."""
    if good == bad:
        raise UsageError(
            f"--good and --bad are the same commit {good[:12]}",
            fix="give an older commit that passes as --good and a newer one that fails as --bad",
        )
    if not _is_ancestor(scratch, good, bad):
        raise _not_ancestor(good, bad)
    lines = scratch.git("log", "--first-parent", "--format=%H%x00%s", bad, f"^{good}").splitlines()
    commits = tuple(RangeCommit(*line.split("\0", 1)) for line in reversed(lines) if "\0" in line)
    pins: dict[str, str | None] = {}
    if triton:
        changed = scratch.git("log", "--first-parent", "--format=%H", bad, f"^{good}", "--", *PIN_FILES).split()
        for sha in (good, *changed):
            pins[sha] = _pin(scratch, sha)
    return CommitRange(good, bad, commits, pins)


def _is_ancestor(scratch: _Scratch, good: str, bad: str) -> bool:
    result = scratch.runner.capture(
        ["git", "--git-dir", str(scratch.repo), "merge-base", "--is-ancestor", good, bad], step=STEP, check=False
    )
    return result.returncode == 0


def _pin(scratch: _Scratch, sha: str) -> str | None:
    reader = LocalRepoReader(scratch.repo, scratch.repo, sha, scratch.runner, STEP)
    try:
        return llvm_pin(reader.read)[1]
    except MismatchError:
        return None  # no readable pin at that commit: it will not build, and the step says why


def import_range(runner: Runner, checkout: Path, scratch: _Scratch) -> None:
    """Bring the range into the checkout (a local fetch), under refs/tritondev/bisect/{good,bad}.

    A shallow checkout (setup's depth-1 clone, often of the --bad commit itself) already has --bad, so
    a plain fetch would bring nothing behind it: it is deepened to the same date as the scratch."""
    deepen = [f"--shallow-since={scratch.since}"] if scratch.since is not None else []
    runner.run(
        [
            "git",
            "-C",
            str(checkout),
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--update-shallow",
            *deepen,
            "--end-of-options",
            str(scratch.repo),
            *(f"+{BISECT_REF_PREFIX}{end}:{BISECT_REF_PREFIX}{end}" for end in ("good", "bad")),
        ],
        step=STEP,
    )


def missing(runner: Runner, checkout: Path, shas: Sequence[str]) -> list[str]:
    """The commits of `shas` the checkout does not have (a range imported by an older run may lack some)."""
    result = runner.capture(
        ["git", "-C", str(checkout), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
        step=STEP,
        check=False,
        input_text="".join(f"{s}\n" for s in shas),
    )
    present = {line.split()[0] for line in result.stdout.splitlines() if line.endswith(" commit")}
    return [s for s in shas if s not in present]


def drop_refs(runner: Runner, checkout: Path, keep: Sequence[str]) -> None:
    """Remove refs/tritondev/bisect/* and the pin refs the bisect's steps added (not those in `keep`)."""
    listing = runner.capture(
        ["git", "-C", str(checkout), "for-each-ref", "--format=%(refname)", BISECT_REF_PREFIX, PIN_REF_PREFIX],
        step=STEP,
        check=False,
    ).stdout.split()
    for ref in listing:
        if ref not in keep:
            runner.run(["git", "-C", str(checkout), "update-ref", "-d", ref], step=STEP, check=False)


def pin_refs(runner: Runner, checkout: Path) -> tuple[str, ...]:
    listing = runner.capture(
        ["git", "-C", str(checkout), "for-each-ref", "--format=%(refname)", PIN_REF_PREFIX], step=STEP, check=False
    )
    return tuple(listing.stdout.split())
