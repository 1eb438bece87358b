"""distcc behind ccache: what the build commands get, and what distcc did during each build.

Compiles reach distcc through ccache's prefix command (CCACHE_PREFIX=distcc): ccache looks in its
own cache first, so a hit never leaves this machine, and only a miss is compiled by distcc on the
hosts in DISTCC_HOSTS. No CMake variable changes: the same configured build runs with or without
distcc, and turning it on or off rebuilds nothing. That is why distcc needs ccache (a launcher of
its own would be a configure input of both builds).

Only the hosts that proved they compile as this machine does (bootstrap.pipeline.distcc.proof) go
into DISTCC_HOSTS. A host that fails during a build is distcc's to handle: the compile goes to
another host or runs here instead (distcc's defaults: a DISTCC_FALLBACK or DISTCC_SKIP_LOCAL_RETRY of
the user's is removed from the build's environment), and distcc leaves the host alone for a while.
Each build step writes distcc's client log to <workspace>/logs/distcc-<step>.log, from which the
summary counts the compiles that went to each host, ran here, or came here after a host failed, and
the hosts that refused or dropped compiles.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ConfigError, ToolMissing
from bootstrap.core.fsutil import NotRegularFile, read_regular
from bootstrap.core.io import writes
from bootstrap.core.settings.distcc_hosts import DistccHosts, HostSpec, is_off, parse_hosts

if TYPE_CHECKING:
    from bootstrap.core.settings.settings_table import Settings

LOG_PREFIX = "distcc-"
DOCTOR = "tritondev doctor --check toolchain.distcc"
# A client log holds about a dozen lines per compile: a real LLVM build writes some 10 MB.
MAX_LOG = 1 << 30
# distcc's client log, one compile: "distcc[PID] compile SRC on HOST completed ok" (or "... failed").
_DONE = re.compile(r"^distcc\[\d+\] compile .* on (\S+) (completed ok|failed)$")
# A compile that was to go to a host and ran here instead.
_FELL_BACK = re.compile(r"running locally instead|failed, retrying locally")
# A host that did not take a compile or dropped it (distcc then tries another host, or compiles here);
# the host is the one the same client process last sent a compile to ("exec on HOST: ...").
_LINE = re.compile(r"^distcc\[(\d+)\] (.*)$")
_EXEC = re.compile(r"^exec on (\S+): ")
_UNREACHABLE = re.compile(
    r"ERROR: (?:nonblocking connect to \S+ failed|failed to connect to |server provided no answer)"
)
# The connection to a host broke while a compile went over it (distcc's src/io.c, dcc_readx/dcc_writex): a
# host that went down mid-compile, before distcc said more (it may then send the compile to the next host).
# Only after an "exec on HOST" of the same client (not "exec on localhost", its fallback): the same words
# on a local file are not a host's doing.
_DROPPED = re.compile(r"ERROR: (?:failed to write: |failed to read: |unexpected eof on fd)")


@dataclass(frozen=True)
class HostVerdict:
    """What proving one host found: usable, or why it is left out."""

    host: HostSpec
    ok: bool
    reason: str  # "compiles as this machine does", or why not, in distcc's and the compiler's words
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {**self.host.to_json(), "ok": self.ok, "reason": self.reason, "seconds": round(self.seconds, 2)}

    def describe(self) -> str:
        return f"{self.host.token}: {'ok' if self.ok else 'left out'}, {self.reason} ({self.seconds:.1f} s)"


@dataclass(frozen=True)
class DistccSetup:
    """The `distcc` setting for a build: the client, the hosts given and, once proven, what each did."""

    client: str  # path of distcc
    given: DistccHosts
    verdicts: tuple[HostVerdict, ...] | None = None  # None: not proven yet

    @property
    def proven(self) -> bool:
        return self.verdicts is not None

    @property
    def hosts(self) -> DistccHosts:
        """The hosts a build uses: those that proved good (all of them until proven)."""
        if self.verdicts is None:
            return self.given
        return self.given.keeping(v.host for v in self.verdicts if v.ok)

    def left_out(self) -> list[HostVerdict]:
        return [v for v in self.verdicts or () if not v.ok]

    def to_json(self) -> dict[str, object]:
        return {
            "given": self.given.value,
            "used": self.hosts.value if self.proven else None,
            "slots": self.hosts.slots,
            "hosts": [v.to_json() for v in self.verdicts or ()],
        }


def observe(
    settings: Settings,
    ccache_found: bool,
    which: Callable[[str], str | None] = shutil.which,
) -> DistccSetup | None:
    """The distcc setting checked against this machine (no process started): None when it is off;
    exit 3 without distcc or ccache, exit 2 when ccache is turned off."""
    if is_off(settings.distcc):
        return None
    assert settings.distcc is not None
    given = parse_hosts(settings.distcc)
    client = which("distcc")
    if client is None:
        raise ToolMissing(
            "distcc is not installed, and the distcc setting asks for it",
            fix="apt-get install distcc (or set distcc = none)",
        )
    if not settings.ccache:
        raise ConfigError(
            "distcc runs behind ccache (its prefix command), and ccache is turned off",
            fix="drop --no-ccache (or ccache = false), or set distcc none",
        )
    if not ccache_found:
        raise ToolMissing(
            "distcc runs behind ccache (its prefix command), and ccache is not installed",
            fix="apt-get install ccache (or set distcc none)",
        )
    return DistccSetup(client, given)


@dataclass(frozen=True)
class DistccBuild:
    """distcc in the environment of the build commands."""

    client: str
    hosts: DistccHosts
    log_dir: Path | None  # <workspace>/logs; None: distcc keeps no log (a dry run)

    def log_file(self, step: str) -> Path | None:
        return None if self.log_dir is None else self.log_dir / f"{LOG_PREFIX}{step}.log"

    def env(self, step: str) -> dict[str, str | None]:
        """Variables set (and removed: None) for a build command of `step`."""
        env: dict[str, str | None] = {
            "CCACHE_PREFIX": self.client,
            "DISTCC_HOSTS": self.hosts.value,
            # distcc's defaults, whatever the user's shell says: a compile a failed host did not run
            # runs here (DISTCC_FALLBACK=0 would fail the build), and so does one that failed there
            # (DISTCC_SKIP_LOCAL_RETRY skips that retry when set to anything, "0" included).
            "DISTCC_FALLBACK": None,
            "DISTCC_SKIP_LOCAL_RETRY": None,
        }
        log = self.log_file(step)
        if log is not None:
            env["DISTCC_LOG"] = str(log)
        return env

    def counted(self, step: str, action: Callable[[], object]) -> DistccCounts | None:
        """Run `action` with a fresh client log for `step`; what distcc did meanwhile (None: no log)."""
        log = self.log_file(step)
        if log is None:
            action()
            return None
        writes.fresh_file(log)  # whatever was there (a FIFO included) is replaced, not read
        action()
        return read_counts(log)


def build_for(setup: DistccSetup | None, log_dir: Path | None) -> DistccBuild | None:
    if setup is None:
        return None
    return DistccBuild(setup.client, setup.hosts, log_dir)


@dataclass(frozen=True)
class DistccCounts:
    remote: Mapping[str, int] = field(default_factory=dict)  # host token -> compiles that ran there
    local: int = 0  # compiles that ran here (localhost slots, or after a host failed)
    fell_back: int = 0  # ... of which because a host failed or refused them
    unreachable: Mapping[str, int] = field(default_factory=dict)  # host token -> compiles it refused or dropped
    log: str | None = None

    @property
    def troubled(self) -> bool:
        """A host failed during the build: it went on, with fewer hosts (or here)."""
        return bool(self.fell_back or self.unreachable)

    @property
    def remote_total(self) -> int:
        return sum(self.remote.values())

    def describe(self) -> str:
        hosts = ", ".join(f"{host}: {n}" for host, n in sorted(self.remote.items()))
        text = f"distcc: {self.remote_total} compiled remotely" + (f" ({hosts})" if hosts else "")
        text += f", {self.local} here"
        if self.fell_back:
            text += f" ({self.fell_back} after a host failed)"
        if self.unreachable:
            text += "; unreachable: " + ", ".join(f"{host} {n} time(s)" for host, n in sorted(self.unreachable.items()))
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "remote": self.remote_total,
            "hosts": dict(self.remote),
            "local": self.local,
            "fell_back": self.fell_back,
            "unreachable": dict(self.unreachable),
            "log": self.log,
        }


def parse_client_log(lines: Iterable[str]) -> DistccCounts:
    """Count distcc's client log: each finished compile names where it ran."""
    remote: Counter[str] = Counter()
    unreachable: Counter[str] = Counter()
    sent_to: dict[str, str] = {}  # client PID -> the host it last sent a compile to
    counted: set[str] = set()  # client PIDs whose trouble with that host is counted (once per sending)
    local = fell_back = 0
    for line in lines:
        text = line.rstrip("\n")
        said = _LINE.match(text)
        pid, message = said.groups() if said else ("", text)
        if _FELL_BACK.search(message):
            fell_back += 1
            continue
        sent = _EXEC.match(message)
        if sent is not None:
            sent_to[pid] = sent.group(1)
            counted.discard(pid)
            continue
        sent_remote = sent_to.get(pid, "localhost") != "localhost"  # a compile run here after a fallback is no host's
        if _UNREACHABLE.search(message) or (sent_remote and _DROPPED.search(message)):
            if pid not in counted:
                unreachable[sent_to.get(pid, "a host")] += 1
                counted.add(pid)
            continue
        match = _DONE.match(text)
        if match is None or match.group(2) != "completed ok":
            continue
        if match.group(1) == "localhost":
            local += 1
        else:
            remote[match.group(1)] += 1
    return DistccCounts(dict(remote), local, fell_back, dict(unreachable))


def read_counts(log: Path) -> DistccCounts | None:
    """The counts of a client log tritondev made; None when it cannot be read as one (never a hang)."""
    try:
        text = read_regular(log, limit=MAX_LOG).decode("utf-8", errors="replace")
    except (OSError, NotRegularFile):
        return None
    counts = parse_client_log(text.splitlines())
    return dataclasses.replace(counts, log=str(log))


def trouble_notice(label: str, counts: DistccCounts) -> str:
    """What a build that lost hosts on the way says: it finished, with fewer hosts or here."""
    said = []
    if counts.unreachable:
        said.append(f"{', '.join(sorted(counts.unreachable))} refused or dropped compiles")
    if counts.fell_back:
        said.append(f"{counts.fell_back} compile(s) ran here because a host failed or refused them")
    return (
        f"distcc during the {label}: {'; '.join(said)} (distcc's log: {counts.log}); the build finished; "
        f"check the hosts with `{DOCTOR}`"
    )


def left_out_notice(verdict: HostVerdict) -> str:
    return f"distcc host {verdict.host.token} left out: {verdict.reason}"
