"""Pure parsers of setting values whose meaning other packages own: backend names, the ccache remote URL, `--llvm`.

`--llvm` is parsed into a sum type, `LlvmSource`, that setup resolves and reports as it is: no string
stands for its kind anywhere below the parser.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bootstrap.core.errors import ConfigError
from bootstrap.core.redact import redact
from bootstrap.core.suggest import did_you_mean

# Backends PyTorch pins a Triton fork for that tritondev does not build: name -> (pin file, repository).
UNSUPPORTED_BACKENDS = {
    "xpu": ("triton-xpu.txt", "intel/intel-xpu-backend-for-triton"),
    "intel": ("triton-xpu.txt", "intel/intel-xpu-backend-for-triton"),
    "cpu": ("triton-cpu.txt", "triton-lang/triton-cpu"),
}


BACKEND_ALIASES = {"rocm": "amd", "hip": "amd", "cuda": "nvidia"}


def check_backend(value: str) -> None:
    """ConfigError (exit 2) for a backend whose Triton is a fork tritondev does not build, or an alias."""
    name = value.strip().lower()
    if name in UNSUPPORTED_BACKENDS:
        pin, repository = UNSUPPORTED_BACKENDS[name]
        raise ConfigError(
            f"backend {value!r} is not supported: PyTorch pins {repository} for it (.ci/docker/ci_commit_pins/{pin}),"
            " a fork of Triton with a build of its own",
            fix=f"build it with {repository}'s own instructions; tritondev builds triton-lang/triton for"
            " --backend nvidia or --backend amd",
        )
    if name in BACKEND_ALIASES:
        raise ConfigError(
            f"unknown backend {value!r}: expected one of nvidia, amd", fix=f"use --backend {BACKEND_ALIASES[name]}"
        )


REMOTE_SCHEMES = ("redis", "redis+unix", "http", "https")


# connect-timeout: ccache's own default (100 ms); a refused connection returns at once, and only a
# silent host costs this much per compile. operation-timeout: ccache's default is 10 s per request,
# which a slow or overloaded server would add to every compile; 5 s still carries a large object
# over a slow link.
REMOTE_DEFAULT_ATTRIBUTES = {"connect-timeout": "100", "operation-timeout": "5000"}


@dataclass(frozen=True)
class RemoteStorage:
    url: str  # as given, possibly with credentials and |attributes: never print this

    @property
    def base(self) -> str:
        """The URL without ccache's |attribute suffixes."""
        return self.url.partition("|")[0]

    @property
    def scheme(self) -> str:
        return urlsplit(self.base).scheme

    @property
    def shown(self) -> str:
        return redact(self.url)

    @property
    def read_only(self) -> bool:
        """The `read-only` attribute: ccache fetches from the remote but never stores there."""
        return any(a.strip() in ("read-only", "read-only=true") for a in self.url.split("|")[1:])

    def ccache_value(self) -> str:
        """The value of CCACHE_REMOTE_STORAGE: the URL in a form ccache authenticates with (see
        ccache_userinfo), its own attributes kept (flags such as `read-only` included) and the
        default timeouts added where the user set none."""
        base, _, attrs = self.url.partition("|")
        given = [a for a in attrs.split("|") if a] if attrs else []
        named = {a.split("=", 1)[0] for a in given}
        added = [f"{k}={v}" for k, v in REMOTE_DEFAULT_ATTRIBUTES.items() if k not in named]
        return "|".join([ccache_url(base), *given, *added])


def ccache_url(base: str) -> str:
    """`base` with its Redis credentials in a form ccache sends: redis://:PASSWORD@host (the usual
    Redis URL with an empty user) becomes redis://PASSWORD@host, or redis://default:PASSWORD@host
    when the password holds a ':' (ccache splits the decoded user info at its first ':').

    ccache (every version since 4.4, redisstorage.cpp split_user_info) reads an empty user as "no
    credentials": it sends no AUTH at all and every remote call of a build fails with NOAUTH.
    """
    scheme, sep, rest = base.partition("://")
    if not sep or scheme.lower() not in ("redis", "redis+unix"):
        return base
    netloc, slash, path = rest.partition("/")
    userinfo, at, host = netloc.rpartition("@")
    if not at or not userinfo.startswith(":"):
        return base
    password = userinfo[1:]
    if not password:
        return f"{scheme}://{host}{slash}{path}"  # redis://:@host: no credentials, as ccache reads it
    fixed = f"default:{password}" if ":" in unquote(password) else password
    return f"{scheme}://{fixed}@{host}{slash}{path}"


def parse_remote_url(text: str) -> RemoteStorage:
    """Validate a remote storage URL; a clear ConfigError (exit 2) for anything ccache would reject."""
    text = text.strip()
    base = text.partition("|")[0]
    scheme, sep, rest = base.partition(":")
    if not sep or scheme.lower() not in REMOTE_SCHEMES:
        raise ConfigError(
            f"unsupported ccache remote URL {redact(text)!r}",
            fix="use redis://HOST[:PORT], redis+unix:///path/to/socket, or http(s)://HOST/PATH",
        )
    netloc = rest[2:].split("/", 1)[0] if rest.startswith("//") else ""
    if netloc.count("@") > 1:
        # The URL itself is not repeated: with a raw '@' in the password, no masking can tell where
        # the password ends.
        raise ConfigError(
            "the ccache remote URL's password contains a raw '@'",
            fix="percent-encode it: '@' as %40 (also ':' as %3A, '/' as %2F)",
        )
    parts = urlsplit(base)
    if parts.scheme == "redis+unix":
        if not parts.path:
            raise ConfigError(f"{redact(text)!r} names no socket path", fix="redis+unix:///run/redis/redis.sock")
    elif not parts.hostname:
        raise ConfigError(f"{redact(text)!r} names no host", fix="e.g. redis://cache.example.com:6379")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        raise ConfigError(f"{redact(text)!r} has an invalid port", fix="use a port between 1 and 65535")
    return RemoteStorage(text)


# -- where LLVM comes from (`--llvm`) -----------------------------------------------------------------


@dataclass(frozen=True)
class LlvmAuto:
    """`--llvm auto` (the default): Triton's package for the pin when its host has one for this machine
    (packages under `url`), else a source build."""

    url: str  # the base URL of the packages (the llvm_prebuilt_url setting)

    @property
    def setting(self) -> str:
        return "auto"


@dataclass(frozen=True)
class LlvmFromSource:
    """`--llvm source`: the pinned llvm-project commit, cloned and built in the workspace."""

    @property
    def setting(self) -> str:
        return "source"


@dataclass(frozen=True)
class LlvmPrebuilt:
    """`--llvm prebuilt`: Triton's own package for the pin, from under `url`."""

    url: str  # the base URL of the packages (the llvm_prebuilt_url setting)

    @property
    def setting(self) -> str:
        return "prebuilt"


@dataclass(frozen=True)
class LlvmTree:
    """`--llvm PATH`: an LLVM build or install tree the user has."""

    path: Path

    @property
    def setting(self) -> str:
        return str(self.path)


LlvmSource = LlvmAuto | LlvmFromSource | LlvmPrebuilt | LlvmTree

_LLVM_WORDS = ("auto", "source", "prebuilt")


def parse_llvm_source(text: str, prebuilt_url: str) -> LlvmSource:
    """The value of `llvm`: auto, source, prebuilt (any case), or the path of an LLVM build (a relative one
    made absolute); ValueError saying what is wrong. `prebuilt_url`: where packages are (llvm_prebuilt_url)."""
    lowered = text.lower()
    if lowered == "auto":
        return LlvmAuto(prebuilt_url)
    if lowered == "source":
        return LlvmFromSource()
    if lowered == "prebuilt":
        return LlvmPrebuilt(prebuilt_url)
    if "/" in text or text.startswith("~") or text in (".", ".."):
        return LlvmTree(Path(os.path.expanduser(text)).absolute())
    hint = did_you_mean(lowered, _LLVM_WORDS) or " (a path needs a '/', e.g. ./build)"
    raise ValueError(f"expected auto, source, prebuilt or the path of an LLVM build{hint}")


def parse_prebuilt_url(text: str) -> str:
    """The value of `llvm_prebuilt_url`: an http(s) base URL, without a trailing slash; ValueError saying
    what is wrong."""
    if not re.match(r"^https?://[^/\s]+(/\S*)?$", text):
        raise ValueError("expected an http:// or https:// base URL")
    try:  # unbalanced IPv6 brackets and ports out of range raise here
        parts = urlsplit(text)
        parts.port  # noqa: B018 - read for its check
    except ValueError as exc:
        raise ValueError(f"not a valid URL ({exc})") from None
    if not parts.hostname:
        raise ValueError("the URL names no host")
    return text.rstrip("/")


def parse_llvm_setting(name: str, text: str) -> str:
    """The value of `llvm` (its sum type's setting text: auto, source, prebuilt, or an absolute path) or
    `llvm_prebuilt_url` as settings hold it; ValueError saying what is wrong."""
    if name == "llvm_prebuilt_url":
        return parse_prebuilt_url(text)
    return parse_llvm_source(text, "").setting
