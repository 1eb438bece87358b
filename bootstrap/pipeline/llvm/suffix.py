"""The machine Triton's prebuilt LLVM packages are chosen for: the package suffix per Triton era.

Upstream's rule: `get_llvm_package_info` in python/setup.py (<= 3.6) and python/build_helpers.py
(>= 3.7); see docs/llvm-sources.md and the conformance table of docs/test-world.md. Which of its
changes a commit has is read from its files (bootstrap.git.setup_py), not its version number: main
carried the old number for months after each (#7430 TRITON_LLVM_SYSTEM_SUFFIX landed while main said
3.4.0, #8191 dropped CentOS 7 while it said 3.5.0).
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ConfigError
from bootstrap.git.setup_py import SetupPyArgs

SUFFIX_ENV = "TRITON_LLVM_SYSTEM_SUFFIX"
_SUFFIX = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")  # it becomes part of a file name


@dataclass(frozen=True)
class Host:
    system: str  # platform.system(): Linux, Darwin, ...
    machine: str  # platform.machine(): x86_64, aarch64, arm64, ...
    glibc: tuple[int, int] | None  # None: not glibc (musl, macOS)
    os_release: str = ""  # /etc/os-release


def detect_host() -> Host:
    glibc = None
    try:
        words = os.confstr("CS_GNU_LIBC_VERSION") or ""  # "glibc 2.36"
    except (AttributeError, ValueError, OSError):
        words = ""
    match = re.match(r"^glibc (\d+)\.(\d+)", words)
    if match:
        glibc = (int(match.group(1)), int(match.group(2)))
    try:
        release = Path("/etc/os-release").read_text(errors="replace")
    except OSError:
        release = ""
    return Host(platform.system(), platform.machine(), glibc, release)


def os_release_id(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("ID="):
            return line[3:].strip().strip("\"'")
    return ""


def host_suffix(host: Host, rules: SetupPyArgs, environ: Mapping[str, str]) -> tuple[str | None, str]:
    """(suffix, why) as the checkout's setup.py / build_helpers.py (`rules`, read from them) choose it;
    suffix None when Triton publishes no package for this machine."""
    chosen = environ.get(SUFFIX_ENV, "").strip()
    if chosen and rules.suffix_env:
        if not _SUFFIX.match(chosen):
            raise ConfigError(
                f"{SUFFIX_ENV}={chosen!r} is not a package suffix such as ubuntu-x64",
                fix=f"unset {SUFFIX_ENV}, or set it to e.g. almalinux-x64",
            )
        return chosen, f"{SUFFIX_ENV}"
    arch = {"x86_64": "x64", "arm64": "arm64", "aarch64": "arm64"}.get(host.machine)
    ignored = f"; {SUFFIX_ENV} is ignored by this Triton (#7430 came later)" if chosen else ""
    if arch is None or host.system not in ("Linux", "Darwin"):
        return None, f"Triton publishes no LLVM package for {host.system} {host.machine}"
    if host.system == "Darwin":
        return f"macos-{arch}", "macOS" + ignored
    if arch == "arm64":
        if rules.almalinux_arm64 and os_release_id(host.os_release) == "almalinux":
            return "almalinux-arm64", "AlmaLinux on arm64" + ignored
        return "ubuntu-arm64", "Linux on arm64" + ignored
    if host.glibc is None:
        return None, "Triton's x64 LLVM packages need glibc (this C library is not glibc)"
    shown = f"glibc {host.glibc[0]}.{host.glibc[1]}"
    if host.glibc > (2, 28):
        return "ubuntu-x64", f"{shown} > 2.28" + ignored
    if host.glibc > (2, 17) or not rules.centos_x64:  # #8191 (3.6) dropped the CentOS 7 package
        return "almalinux-x64", f"{shown} <= 2.28" + ignored
    return "centos-x64", f"{shown} <= 2.17" + ignored
