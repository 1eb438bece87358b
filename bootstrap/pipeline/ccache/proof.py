"""Proof that ccache itself can use a remote storage: one real store and one real fetch through it.

A check of the remote must say what the build will get, and only ccache knows how it reads a URL
(to ccache an empty Redis user means no credentials at all: see ccache_remote.ccache_url). So the
proof is ccache's own: a tiny C file with a body no one compiled before goes through ccache with the
CCACHE_REMOTE_STORAGE a build gets, first with an empty private local cache (a miss, whose result
ccache stores in the remote), then with a second empty one (nothing local: the result can only come
back from the remote). `ccache --print-stats` of each private cache says what the remote did, and
ccache's log why it failed. The user's own cache and counters are not touched; each proof leaves
one object of a few hundred bytes in the remote.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from bootstrap.core.io import writes
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact
from bootstrap.core.settings.values import RemoteStorage
from bootstrap.pipeline.ccache.remote import env_for
from bootstrap.pipeline.ccache.stats import parse_print_stats

COMPILE_TIMEOUT = 60.0
# Lines of ccache's log that say why the remote failed (ccache masks the secret there itself).
# e.g. "Redis command failed: WRONGPASS ...", "Failed to construct backend for redis://...: ... refused"
_REMOTE_LOG = re.compile(r"(redis|http|remote|backend).*(fail|error|refused|timed out|denied)", re.I)
_REPEATS = "since it failed earlier"  # ccache's later lines about the same failure


@dataclass(frozen=True)
class RemoteProof:
    stored: int | None  # objects ccache wrote to the remote on the first compile (None: not counted)
    fetched: bool  # the second compile, with an empty local cache, was answered by the remote
    errors: int  # remote errors over both compiles
    timeouts: int
    read_only: bool
    reasons: tuple[str, ...]  # ccache's log lines about the failures, masked
    seconds: float

    @property
    def ok(self) -> bool:
        if self.errors or self.timeouts:
            return False
        return True if self.read_only else self.fetched


def remote_counters(stats: Mapping[str, int]) -> dict[str, int]:
    """The remote counters of `ccache --print-stats`; ccache < 4.7 called them secondary_storage_*."""
    return {
        key.replace("secondary_storage", "remote_storage"): value
        for key, value in stats.items()
        if key.startswith(("remote_storage", "secondary_storage"))
    }


def judge(
    first: Mapping[str, int],
    second: Mapping[str, int],
    *,
    read_only: bool,
    reasons: tuple[str, ...] = (),
    seconds: float = 0.0,
) -> RemoteProof:
    """What the counters of the two private caches say. Pure: unit-tested."""
    one, two = remote_counters(first), remote_counters(second)
    written = one.get("remote_storage_write")
    return RemoteProof(
        stored=written,
        fetched=two.get("remote_storage_hit", 0) > 0,
        errors=one.get("remote_storage_error", 0) + two.get("remote_storage_error", 0),
        timeouts=one.get("remote_storage_timeout", 0) + two.get("remote_storage_timeout", 0),
        read_only=read_only,
        reasons=reasons,
        seconds=seconds,
    )


def prove_remote(
    runner: Runner,
    ccache: str,
    compiler: str,
    remote: RemoteStorage,
    version: Version | None,
    scratch: Path,
    environ: Mapping[str, str],
) -> RemoteProof:
    """Store one object in the remote through ccache and fetch it back (see the module's docstring).

    environ: the user's environment, which the build runs in too; CCACHE_DIR is replaced by the
    private caches, and the remote variables are exactly those the build commands get (env_for).
    """
    started = time.monotonic()
    source = scratch / "tritondev_remote_probe.c"
    token = secrets.token_hex(8)
    writes.replace_text(
        source,
        f"/* tritondev: a ccache remote storage round trip, {token} */\n"
        f"int tritondev_remote_probe_{token}(void) {{ return 0x{token[:6]}; }}\n",
    )
    remote_env = env_for(remote, version, base_dir=scratch, environ=environ)
    counters = []
    log_lines: list[str] = []
    for n in (1, 2):
        local = scratch / f"local-{n}"
        log = scratch / f"ccache-{n}.log"
        env: dict[str, str | None] = {**remote_env, "CCACHE_DIR": str(local), "CCACHE_LOGFILE": str(log)}
        runner.capture(
            [ccache, compiler, "-c", source.name, "-o", f"probe-{n}.o"],
            step="doctor-ccache-remote",
            cwd=scratch,
            env=env,
            timeout=COMPILE_TIMEOUT,
            fix="the C compiler failed on a one-line file: see toolchain checks",
        )
        stats = runner.capture([ccache, "--print-stats"], step="doctor-ccache-remote", env=env, timeout=COMPILE_TIMEOUT)
        counters.append(parse_print_stats(stats.stdout))
        log_lines += _remote_failures(log)
    return judge(
        counters[0],
        counters[1],
        read_only=remote.read_only,
        reasons=tuple(dict.fromkeys(log_lines)),
        seconds=time.monotonic() - started,
    )


def _remote_failures(log: Path) -> list[str]:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        # "[2026-01-01T00:00:00.000000 1234 ] Redis command failed: NOAUTH ..." -> the message only
        message = line.split("] ", 1)[-1].strip()
        if _REMOTE_LOG.search(message) and _REPEATS not in message and not message.startswith("Result:"):
            found.append(redact(message.rstrip(".")))
    return found
