"""Validation of everything that reaches git: commit ids, refs, repository and download URLs.

Every value from the user, a settings file or a pin file passes through here *before* any git
call. A value that git could read as an option (`--upload-pack=...`), a remote-helper address
(`ext::sh -c ...`) or a ref with odd characters is rejected with a clear message; git never
sees it. The runner adds a second line of defence (GIT_ALLOW_PROTOCOL, stripped GIT_* variables).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from bootstrap.core.errors import ConfigError, MismatchError

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")

# A strict subset of git-check-ref-format: what PyTorch tags (v2.5.1, v2.6.0-rc3), branches
# (main, release/2.5, viable/strict) and commits look like. Starts with a letter or digit, so
# nothing can be read as an option.
_REF_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+/-]{0,199}$")

# Transports git may reach a repository through; `ext::`, `fd::` and other remote helpers are not.
_GIT_SCHEMES = ("https", "http", "ssh", "git", "file")
# `<transport>::<address>` is git's remote-helper syntax (ext::, fd::, ...): never allowed.
_REMOTE_HELPER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9+.-]*::")
# scp-like ssh address: user@host:path (no scheme, a colon before the first slash).
_SCP_RE = re.compile(r"^(?:[A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+:(?!/)[A-Za-z0-9._/~-][^\s]*$")

# The refs tritondev makes in a checkout, each prefix spelled here only.
PIN_REF_PREFIX = "refs/tritondev/pins/"  # a pinned commit fetched alone, kept reachable
BISECT_REF_PREFIX = "refs/tritondev/bisect/"  # the ends of a bisect's range, while it runs
FETCHED_REF_PREFIX = "refs/tritondev/fetched/"  # a ref read through git without a checkout

RAW_PREFIX = "raw+"


def validate_commit(value: str, what: str = "commit") -> str:
    """A full 40-hex commit id (lower-cased), or a ConfigError saying exactly what is wrong."""
    text = value.strip().lower()
    if SHA_RE.match(text):
        return text
    raise ConfigError(
        f"{what} {value!r} is not a commit id: {_what_is_wrong_with_sha(value)}",
        fix=f"give {what} as the full 40-hex commit id (git rev-parse <ref> prints it)",
    )


def _what_is_wrong_with_sha(value: str) -> str:
    text = value.strip()
    if not text:
        return "it is empty"
    if re.match(r"^[0-9a-fA-F]{40}[^0-9a-fA-F]", text):
        return "it has extra text after the 40 hex digits"
    first = text.split()[0]
    if _HEX_RE.match(first):
        if len(first) != 40:
            return f"it has {len(first)} hex digits, a commit id has 40"
        return "it has extra text after the 40 hex digits"
    if text.startswith("-"):
        return "it starts with '-' (looks like an option)"
    return "it is not hexadecimal"


def parse_pin_file(text: str, where: str) -> str:
    """The commit in a one-line pin file (PyTorch's triton.txt, Triton's llvm-hash.txt).

    Exactly one 40-hex id and nothing else (blank lines and surrounding whitespace are fine).
    A malformed pin is a pin problem (exit 5), not a usage error: the user did nothing wrong.
    """
    stripped = text.strip()
    if SHA_RE.match(stripped.lower()):
        return stripped.lower()
    raise MismatchError(
        f"pin file {where} does not hold a commit id: {_what_is_wrong_with_sha(stripped)} (content: {_preview(text)})",
        fix="check the pin file at that ref, or pass --triton-commit SHA to choose the commit yourself",
    )


def _preview(text: str, limit: int = 60) -> str:
    shown = text.strip().replace("\n", "\\n")
    return repr(shown if len(shown) <= limit else shown[:limit] + "...")


def validate_ref(value: str, what: str = "--torch-ref") -> str:
    """A tag, branch or commit name safe to hand to git, or a ConfigError."""
    text = value.strip()
    problem = None
    if not text:
        problem = "it is empty"
    elif text.startswith("-"):
        problem = "it starts with '-' and would be read as an option"
    elif not _REF_RE.match(text):
        problem = "only letters, digits and . _ + / - are allowed, starting with a letter or digit"
    elif ".." in text or "//" in text or text.endswith(("/", ".", ".lock")) or "/." in text:
        problem = "it is not a valid git ref name"
    if problem:
        raise ConfigError(
            f"{what} {value!r} is rejected: {problem}",
            fix=f"give {what} as a PyTorch tag (v2.5.1), branch (main, release/2.5) or commit id",
        )
    return text


def is_commit_like(ref: str) -> bool:
    """A full commit id (abbreviated ids are refs for the resolver: they may also be tag names)."""
    return bool(SHA_RE.match(ref.lower()))


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class RepoUrl:
    """A validated repository location.

    kind: "path" (a local folder, absolute), "git" (a URL git fetches from), or "raw" (a base URL
    under which <ref>/<path> serves raw files; only for reading pin files).
    """

    kind: str
    url: str

    @property
    def github_slug(self) -> str | None:
        """OWNER/REPO when this is a https://github.com repository (whose raw files have a fast path)."""
        if self.kind != "git":
            return None
        parts = urlsplit(self.url)
        if parts.scheme != "https" or parts.hostname != "github.com":
            return None
        path = parts.path.strip("/")
        if path.endswith(".git"):
            path = path[:-4]
        bits = path.split("/")
        if len(bits) != 2 or not all(bits):
            return None
        return path


def validate_repo_url(value: str, what: str = "repository URL") -> RepoUrl:
    """A URL or path that git may fetch from, or a ConfigError. Nothing option-like passes."""
    text = value.strip()

    def bad(problem: str) -> ConfigError:
        return ConfigError(
            f"{what} {value!r} is rejected: {problem}",
            fix="use an https://, ssh://, git:// or file:// URL, user@host:path, or a local folder",
        )

    if not text:
        raise bad("it is empty")
    if text.startswith("-"):
        raise bad("it starts with '-' and would be read as an option")
    if _REMOTE_HELPER_RE.match(text):
        raise bad("remote-helper transports such as ext:: and fd:: are disabled")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise bad("it contains whitespace or control characters")
    if text.startswith(RAW_PREFIX):
        return validate_raw_base(text[len(RAW_PREFIX) :], what)
    if "://" in text:
        parts, problem = _split_url(text)
        if parts is None:
            raise bad(problem)
        scheme = parts.scheme.lower()
        if scheme not in _GIT_SCHEMES:
            raise bad(f"transport '{scheme}' is not allowed (allowed: {', '.join(_GIT_SCHEMES)})")
        if scheme == "http" and not _is_loopback(parts.hostname):
            raise bad("plain http is allowed only for 127.0.0.1/localhost; use https")
        if scheme == "file":
            if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
                raise bad("a file:// URL names a folder on this machine by its absolute path: file:///path/to/repo")
            return RepoUrl("path", str(Path(parts.path).absolute()))
        if not parts.hostname or parts.hostname.startswith("-"):
            raise bad("it names no valid host")
        return RepoUrl("git", text)
    if text.startswith(("/", "./", "../", "~")) or not _SCP_RE.match(text):
        # Anything else without a scheme is a local path (what git would do, too).
        try:
            return RepoUrl("path", str(Path(text).expanduser().absolute()))
        except RuntimeError as exc:  # ~someone who has no home folder here
            raise bad(str(exc)) from None
    host = text.split(":", 1)[0].split("@")[-1]
    if host.startswith("-"):
        raise bad("it names no valid host")
    return RepoUrl("git", text)


def _split_url(text: str) -> tuple[SplitResult | None, str]:
    """urlsplit, and the port read once (both raise ValueError on what no tool could reach)."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - reading it validates it
    except ValueError as exc:
        return None, f"it is not a valid URL ({exc})"
    return parts, ""


def validate_raw_base(value: str, what: str = "raw-file URL") -> RepoUrl:
    """An HTTPS base URL for raw files (http only on loopback, for local test servers)."""
    parts, problem = _split_url(value)
    if parts is not None:
        scheme = parts.scheme.lower()
        if scheme == "https" or (scheme == "http" and _is_loopback(parts.hostname)):
            if parts.hostname and not parts.username and not parts.password:
                return RepoUrl("raw", value.rstrip("/"))
            problem = "it must name a host and carry no credentials"
        elif scheme == "http":
            problem = "plain http is allowed only for 127.0.0.1/localhost (a local server); use https"
        else:
            problem = "raw files are downloaded over https only"
    raise ConfigError(f"{what} {value!r} is rejected: {problem}", fix="use an https:// URL")


def validate_slug(value: str, what: str) -> str:
    """OWNER/REPO as named in Triton's cmake/llvm-build-info.json."""
    text = value.strip()
    if re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$", text) and ".." not in text:
        return text
    raise MismatchError(
        f"{what} names repository {value!r}, which is not of the form OWNER/REPO",
        fix="pass --llvm-url URL to choose the LLVM repository yourself",
    )
