"""ccache remote storage (the ccache_remote setting): a ccache that can use it, and a server that stores
and returns what ccache itself sends it (bootstrap.pipeline.ccache.proof): what the check says is what
the build gets."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from bootstrap.core.errors import ConfigError
from bootstrap.core.settings.values import parse_remote_url

# Imported first so that its checks are registered first: this one then follows toolchain.ccache.
from bootstrap.doctor.checks import toolchain as _toolchain  # noqa: F401
from bootstrap.doctor.facts import Facts, Skip
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.pipeline.ccache.proof import RemoteProof, prove_remote
from bootstrap.pipeline.ccache.remote import (
    FEATURE_OF,
    MIN_CCACHE,
    Reachability,
    ccache_features,
    parse_ccache_version,
    probe,
)

PROBE_TIMEOUT = 3.0
COMPILERS = ("cc", "gcc", "clang")  # any C compiler proves the remote; the build's own is not needed
_FIX = (
    "check the URL's host, port, user and password: redis://[USER:]PASSWORD@HOST[:PORT], "
    "http://[USER:PASSWORD@]HOST/PATH (tritondev hands ccache redis://:PASSWORD@HOST as redis://PASSWORD@HOST)"
)


@dataclass(frozen=True)
class RemoteFigures:
    """What the check found of the remote: whether it answered and, once ccache itself tried it, what
    ccache stored and fetched back (proof)."""

    remote: str  # the URL as shown (password masked)
    reachable: bool
    proven: bool | None = None  # None: not tried through ccache (it did not answer)
    proof: RemoteProof | None = None  # ccache's own round trip, when it ran

    def to_json(self) -> dict[str, object]:
        figures: dict[str, object] = {"remote": self.remote, "reachable": self.reachable}
        if self.proven is not None:
            figures["proven"] = self.proven
        if self.proof is not None:
            figures.update(
                stored=self.proof.stored,
                fetched=self.proof.fetched,
                remote_errors=self.proof.errors,
                remote_timeouts=self.proof.timeouts,
            )
        return figures


@check("toolchain.ccache-remote", "ccache remote storage (shared build cache)")
def ccache_remote(facts: Facts) -> CheckOutcome:
    url = facts.ctx.settings.ccache_remote
    if not url:
        raise Skip(
            "no ccache remote configured",
            "set ccache_remote in tritondev.toml, TRITONDEV_CCACHE_REMOTE, or pass setup --ccache-remote URL",
        )
    try:
        remote = parse_remote_url(url)
    except ConfigError as exc:
        return error(exc.message, exc.fix)
    shown = remote.shown
    tool = facts.tool("ccache")
    if tool.path is None:
        return warn(
            f"remote {shown} configured, but ccache is not installed: builds use no cache at all",
            "apt-get install ccache",
        )
    version = parse_ccache_version(tool.output)
    if version is not None and version < MIN_CCACHE:
        return error(
            f"ccache {version} has no remote storage (needs >= {MIN_CCACHE}); setup refuses the remote",
            "upgrade ccache (e.g. pip install ccache), or drop the ccache_remote setting",
        )
    features = ccache_features(tool.output)
    needed = FEATURE_OF[remote.scheme]
    if features and needed not in features:
        return error(
            f"this ccache was built without {needed}: it cannot use {shown}",
            "install a ccache built with it (pip install ccache has every backend)",
            f"features: {' '.join(sorted(features))}",
        )
    if remote.scheme == "https":
        return warn(
            f"ccache's HTTP backend speaks no HTTPS: every lookup in {shown} fails, builds go on without it",
            "put the cache behind plain http:// on a trusted network, or use redis://",
        )
    reach = probe(remote, timeout=PROBE_TIMEOUT)
    version_text = f"ccache {version}" if version else "ccache"
    if not reach.answered:
        # Builds still work (ccache goes on without the remote), only slower: a warning, not an error.
        return warn(
            f"remote {shown} unreachable ({reach.detail}): builds go on with the local cache only",
            "start the cache server or check the URL, host and port",
            f"{version_text}; probe took {reach.seconds * 1000:.0f} ms",
            figures=RemoteFigures(shown, reachable=False),
        )
    path = facts.environ.get("PATH", "")
    compiler = next((found for name in COMPILERS if (found := shutil.which(name, path=path))), None)
    if compiler is None:
        return _answered_only(reach, shown, version_text)
    proof = prove_remote(
        facts.ctx.runner, tool.path, compiler, remote, version, facts.tempdir("ccache-remote"), facts.environ
    )
    return _verdict(proof, reach, shown, version_text)


def _answered_only(reach: Reachability, shown: str, version_text: str) -> CheckOutcome:
    """No C compiler to prove it through ccache: only what the server said to our own client."""
    why = "not proven through ccache: no C compiler (clang, gcc, cc) on PATH"
    if not reach.ok:
        return error(
            f"{shown} refused tritondev's request ({reach.detail}); {why}",
            _FIX,
            figures=RemoteFigures(shown, reachable=True, proven=False),
        )
    return warn(
        f"{shown} answers ({reach.detail}); {why}",
        "install a C compiler (apt-get install gcc)",
        version_text,
        figures=RemoteFigures(shown, reachable=True, proven=False),
    )


def _verdict(proof: RemoteProof, reach: Reachability, shown: str, version_text: str) -> CheckOutcome:
    """What ccache's own round trip says, in the words a build would meet."""
    took = f"{proof.seconds:.1f} s"
    details = [f"{version_text}; server: {reach.detail}", *(f"ccache: {line}" for line in proof.reasons)]
    data = RemoteFigures(shown, reachable=True, proven=proof.ok, proof=proof)
    if proof.errors or proof.timeouts:
        said = proof.reasons[0] if proof.reasons else f"{proof.errors} error(s), {proof.timeouts} timeout(s)"
        return error(
            f"ccache cannot use {shown}: {said}; every build would compile without it", _FIX, *details, figures=data
        )
    if proof.read_only:
        return ok(
            f"{version_text} reads {shown} (read-only: nothing stored, as configured; {took})", *details, figures=data
        )
    if not proof.fetched:
        return error(
            f"ccache stored an object in {shown} but did not get it back from there",
            "check the server's memory limit and eviction policy, and that the user may read its keys",
            *details,
            figures=data,
        )
    return ok(
        f"{shown} answers ({reach.detail}, {reach.seconds * 1000:.0f} ms); {version_text} stored an object "
        f"there and fetched it back ({took})",
        *details,
        figures=data,
    )
