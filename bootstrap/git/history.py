"""How much history a checkout tritondev makes gets, and the branch it is on.

- pin: one commit at depth 1 (LLVM: nothing is bisected or rebased there but through tritondev).
- blobless (Triton's default): a partial clone, `git fetch --filter=blob:none` of every branch of
  origin, as `git clone --filter=blob:none` makes it: all commits and trees, so that `git log`,
  `git bisect`, `git rebase` and `git fetch` work as in a full clone, while file contents come only
  for the commits checked out (git fetches missing blobs from origin when it needs them).
- full: every object (--full-history).

A checkout of the pin is on a local branch named after it, `tritondev/<pin8>`, not a detached HEAD, so
that work started there is on a branch; origin is the repository it came from (without credentials:
the URL with them reaches git only through the environment of the commands that fetch, as
`url.<full>.insteadOf`, never .git/config).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import without_credentials

History = Literal["pin", "blobless", "full"]
BRANCH_PREFIX = "tritondev/"


def branch_for(commit: str) -> str:
    return f"{BRANCH_PREFIX}{commit[:8]}"


def credential_env(url: str) -> dict[str, str]:
    """For a URL with credentials: git rewrites the stored URL (without them) to it, in this command
    only (git's GIT_CONFIG_COUNT variables: the URL never lands in a config file)."""
    stored = without_credentials(url)
    if stored == url:
        return {}
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{url}.insteadOf", "GIT_CONFIG_VALUE_0": stored}


def blobless_fetch(commit: str, pin_ref: str) -> list[str]:
    """Every branch of origin (commits and trees; tags that point into them follow) and the pin."""
    return [
        "fetch",
        "--filter=blob:none",
        "--no-write-fetch-head",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
        f"+{commit}:{pin_ref}",
    ]


def is_partial(repo: Path, runner: Runner, step: str) -> bool:
    said = runner.capture(["git", "-C", str(repo), "config", "--get", "remote.origin.promisor"], step=step, check=False)
    return said.stdout.strip() == "true"


def checked_out_commit(repo: Path, runner: Runner, step: str) -> str:
    """The commit HEAD names in the checkout `repo` ('' when it names none: unborn, or no repository),
    asked of git (reads only). git/head.py reads the same from the files, without a process."""
    result = runner.capture(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
        step=step,
        check=False,
        timeout=3600,
    )
    return result.stdout.strip() if result.returncode == 0 else ""


def current_branch(repo: Path, runner: Runner, step: str) -> str | None:
    """The short name of the branch the checkout `repo` is on; None when HEAD is detached. Reads only."""
    said = runner.capture(["git", "-C", str(repo), "symbolic-ref", "-q", "--short", "HEAD"], step=step, check=False)
    return said.stdout.strip() or None


def origin_url(repo: Path, runner: Runner, step: str) -> str:
    result = runner.capture(["git", "-C", str(repo), "remote", "get-url", "origin"], step=step, check=False)
    return result.stdout.strip()
