"""An LLVM pin that only a fork has: the repositories to try after the one the Triton commit names.

Triton's release branches pin LLVM backports that live in the triton-lang/llvm-project fork. Where a
release says so in its own files (release/3.8.x: `cmake/llvm-build-info.json`'s `repository`, #10719;
release/3.5.x: `scripts/build-llvm-project.sh`'s LLVM_PROJECT_URL, #8081) the pins name the fork and
it is fetched first. release/3.7.x does not: #10631 points `cmake/llvm-hash.txt` at
triton-lang/llvm-project@1f126a6d, with no build-info file, and its build script still clones
llvm/llvm-project. There the fetch of the pin from llvm/llvm-project fails with git's "not our ref",
and the candidates below are tried in turn (bootstrap.git.layout.llvm_sources: the repositories the
commit's files name, then triton-lang/llvm-project, then llvm/llvm-project), saying so in one line.

Only for GitHub URLs tritondev chose itself: a URL the user gave (--llvm-url, TRITONDEV_LLVM_URL, the
file) or a --mirror is theirs to change, and the error names the fork to pass instead. Each attempt is
setup's own checkout (bootstrap.git.checkouts.ensure_checkout): a new clone is assembled in
`src/llvm-project.partial`, which the next attempt starts again (it holds our mark: only objects we
fetched), and a `.partial` that is not ours stops it (exit 6); an existing checkout gets the commit by
URL, its remotes untouched, and is moved by the one guarded move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import CommandFailed, MismatchError
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact
from bootstrap.git.checkouts import CheckoutReport, ensure_checkout
from bootstrap.git.history import History
from bootstrap.git.layout import TRITON_LLVM_FORK

_MISSING_COMMIT = ("not our ref", "couldn't find remote ref", "no such remote ref", "unadvertised object")


@dataclass(frozen=True)
class Candidate:
    slug: str  # OWNER/REPO
    url: str
    why: str  # why this repository may have it

    def line(self, commit: str, tried: str) -> str:
        return f"LLVM {commit[:12]} is not in {redact(tried)}: fetching it from {self.url} ({self.why})"


def not_in_repository(exc: CommandFailed) -> bool:
    """git's answer when the repository fetched from does not have the commit."""
    return any(marker in line for line in exc.tail for marker in _MISSING_COMMIT)


def candidates(primary: str, forks: Sequence[str], tried_url: str) -> list[Candidate]:
    """The GitHub repositories to try for the pin, most likely first, less the one tried. Pure."""
    why = {
        TRITON_LLVM_FORK: "Triton pins LLVM backports there",
        primary: "the repository this Triton commit's own files name",
    }
    tried = tried_url.removesuffix("/").removesuffix(".git")
    found = []
    for slug in dict.fromkeys((primary, *forks)):
        url = f"https://github.com/{slug}.git"
        if url.removesuffix(".git") != tried:
            found.append(Candidate(slug, url, why.get(slug, "upstream LLVM")))
    return found


def checkout_from_forks(
    name: str,
    commit: str,
    dest: Path,
    runner: Runner,
    tried_url: str,
    tried: Sequence[Candidate],
    *,
    say: Callable[[str], None],
    allow_dirty: bool = False,
    full_history: bool = False,
    history: History = "pin",
) -> tuple[CheckoutReport, Candidate]:
    """`dest` at `commit` from the first candidate that has it; each attempt said in one line.

    MismatchError (exit 5) naming every repository asked when none has it; any other failure of an
    attempt (no network, a checkout with local work) stops as setup's checkout does."""
    asked = [redact(tried_url)]
    for candidate in tried:
        say(candidate.line(commit, tried_url))
        try:
            report = ensure_checkout(
                name,
                candidate.url,
                commit,
                dest,
                runner,
                allow_dirty=allow_dirty,
                full_history=full_history,
                history=history,
            )
        except CommandFailed as exc:
            if not not_in_repository(exc):
                raise
            asked.append(candidate.url)
            continue
        return report, candidate
    raise MismatchError(
        f"LLVM commit {commit} is in none of {', '.join(asked)}",
        fix="pass --llvm-url with a repository that has it (a fork the Triton commit's pull request names)",
    )
