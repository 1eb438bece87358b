"""Triton's prebuilt LLVM package for a pin and this machine: its name, URL and sha256 (from
cmake/llvm-info.json, >= 3.8), named as Triton's own setup.py (<= 3.6) and python/build_helpers.py
(>= 3.7) name it: `llvm-<hash8>-<suffix>-<build_number>.tar.gz` with `sha256sum[<suffix>]`, or
`llvm-<hash8>-<suffix>.tar.gz` and no sum before 3.8; and the unpacking Triton's setup.py may already
have left on this machine. The suffix is chosen per era as upstream chooses it (bootstrap.pipeline.llvm.suffix).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import MismatchError
from bootstrap.core.fsutil import parse_json, read_regular_text
from bootstrap.core.redact import redact
from bootstrap.git.layout import LLVM_INFO
from bootstrap.git.setup_py import SetupPyArgs
from bootstrap.pipeline.host.buildtree import read_vcs_revision
from bootstrap.pipeline.llvm.suffix import SUFFIX_ENV, Host, host_suffix

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


# -- cmake/llvm-info.json ------------------------------------------------------------------------


@dataclass(frozen=True)
class LlvmInfo:
    """cmake/llvm-info.json (Triton >= 3.8): the LLVM commit, the package's build number, and the
    sha256 of each platform's package."""

    llvm_hash: str
    build_number: int
    sha256sum: Mapping[str, str]  # suffix -> 64 lower-case hex digits
    malformed: tuple[str, ...] = ()  # suffixes whose sum is not 64 hex digits


def parse_llvm_info(text: str, where: str = LLVM_INFO) -> LlvmInfo:
    """The file's facts; MismatchError (exit 5) naming what is wrong with it."""

    def bad(what: str) -> MismatchError:
        return MismatchError(f"{where} {what}", fix="check the Triton commit, or use --llvm source")

    try:
        data = parse_json(text)
    except (ValueError, RecursionError):
        raise bad("is not valid JSON") from None
    if not isinstance(data, dict):
        raise bad("is not a JSON object")
    llvm_hash = data.get("llvm_hash")
    if not isinstance(llvm_hash, str) or not _HEX40.match(llvm_hash.strip().lower()):
        raise bad("has no 40-hex-digit 'llvm_hash'")
    number = data.get("build_number")
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < 10**9:
        raise bad("has no whole-number 'build_number'")
    sums = data.get("sha256sum", {})
    if not isinstance(sums, dict):
        raise bad("has a 'sha256sum' that is not an object")
    good = {k: v.lower() for k, v in sums.items() if isinstance(v, str) and _HEX64.match(v.lower())}
    malformed = tuple(sorted(str(k) for k in sums if k not in good))
    return LlvmInfo(llvm_hash.strip().lower(), number, good, malformed)


# -- the package ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Package:
    """One prebuilt LLVM package: `<name>.tar.gz` at `url`, a single top folder `<name>/` inside."""

    name: str  # llvm-<hash8>-<suffix>[-<build_number>]
    url: str
    sha256: str | None  # None: this Triton era publishes no sums
    suffix: str
    llvm_hash: str
    build_number: int | None
    suffix_reason: str = ""

    @property
    def archive(self) -> str:
        return f"{self.name}.tar.gz"

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "url": redact(self.url),
            "sha256": self.sha256,
            "suffix": self.suffix,
            "suffix_reason": self.suffix_reason,
            "llvm_hash": self.llvm_hash,
            "build_number": self.build_number,
        }


def local_package(package: Package, environ: Mapping[str, str]) -> Path | None:
    """This very package, already unpacked on this machine by Triton's own setup.py (an earlier `pip install
    -e .`): `$TRITON_HOME/.triton/llvm/<name>`, else `$HOME/.triton/llvm/<name>`, as upstream names it. Only
    when it is that package: its VCSRevision.h names the pin (without one, its version.txt, upstream's own
    mark, names the same archive), and its llvm-config is there. Read only; never moved."""
    home = environ.get("TRITON_HOME") or environ.get("HOME")
    if not home:
        return None
    folder = Path(home) / ".triton" / "llvm" / package.name
    if folder.is_symlink() or not (folder / "bin" / "llvm-config").is_file():
        return None
    revision = read_vcs_revision(folder)
    if revision is not None:
        return folder if revision == package.llvm_hash.lower() else None
    try:
        url = read_regular_text(folder / "version.txt", limit=1 << 12).strip()
    except OSError:
        return None
    return folder if url.rsplit("/", 1)[-1] == package.archive else None


def package_for(
    info_text: str | None, pin: str, rules: SetupPyArgs, host: Host, environ: Mapping[str, str], base_url: str
) -> Package:
    """The package Triton at this pin downloads on this host (`rules`: what its setup.py / build_helpers.py
    say of the suffix). MismatchError when there is none."""
    suffix, why = host_suffix(host, rules, environ)
    if suffix is None:
        raise MismatchError(f"no prebuilt LLVM for this machine: {why}", fix="build LLVM from source: --llvm source")
    if info_text is None:  # cmake/llvm-hash.txt era: no build number, no sums
        return Package(
            f"llvm-{pin[:8]}-{suffix}", f"{base_url}/llvm-{pin[:8]}-{suffix}.tar.gz", None, suffix, pin, None, why
        )
    info = parse_llvm_info(info_text)
    name = f"llvm-{info.llvm_hash[:8]}-{suffix}-{info.build_number}"
    sha = info.sha256sum.get(suffix)
    if sha is None:
        state = "a malformed sha256 for" if suffix in info.malformed else "no sha256 for"
        known = ", ".join(sorted(info.sha256sum)) or "none"
        raise MismatchError(
            f"{LLVM_INFO} at this Triton commit has {state} {suffix} (packages with sums: {known})",
            fix=f"set {SUFFIX_ENV} to one of them, or build LLVM from source: --llvm source",
        )
    return Package(name, f"{base_url}/{name}.tar.gz", sha, suffix, info.llvm_hash, info.build_number, why)


def llvm_info_text(at_pin: str | None, checkout: Path, *, kept: bool) -> str | None:
    """cmake/llvm-info.json as the build will see it: the checkout's own when it is built as it
    stands (--allow-dirty), else the pinned commit's."""
    if not kept:
        return at_pin
    try:
        return read_regular_text(checkout / LLVM_INFO, limit=1 << 24)
    except OSError:
        return None
