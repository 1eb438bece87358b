"""ccache remote storage (the ccache_remote setting): a ccache that can use it, and a server that answers."""

from __future__ import annotations

from bootstrap.core.errors import ConfigError

# Imported first so that its checks are registered first: this one then follows toolchain.ccache.
from bootstrap.doctor.checks import toolchain as _toolchain  # noqa: F401
from bootstrap.doctor.facts import Facts, Skip
from bootstrap.doctor.model import Outcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.pipeline.ccache_remote import (
    FEATURE_OF,
    MIN_CCACHE,
    ccache_features,
    parse_ccache_version,
    parse_remote_url,
    probe,
)

PROBE_TIMEOUT = 3.0


@check("toolchain.ccache-remote", "ccache remote storage (shared build cache)")
def ccache_remote(facts: Facts) -> Outcome:
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
        return warn(f"remote {shown} configured, but ccache is not installed: builds use no cache at all",
                    "apt-get install ccache")
    version = parse_ccache_version(tool.output)
    if version is not None and version < MIN_CCACHE:
        return error(f"ccache {version} has no remote storage (needs >= {MIN_CCACHE}); setup refuses the remote",
                     "upgrade ccache (e.g. pip install ccache), or drop the ccache_remote setting")
    features = ccache_features(tool.output)
    needed = FEATURE_OF[remote.scheme]
    if features and needed not in features:
        return error(f"this ccache was built without {needed}: it cannot use {shown}",
                     "install a ccache built with it (pip install ccache has every backend)",
                     f"features: {' '.join(sorted(features))}")
    if remote.scheme == "https":
        return warn(f"ccache's HTTP backend speaks no HTTPS: every lookup in {shown} fails, builds go on "
                    "without it", "put the cache behind plain http:// on a trusted network, or use redis://")
    reach = probe(remote, timeout=PROBE_TIMEOUT)
    version_text = f"ccache {version}" if version else "ccache"
    if not reach.ok:
        # Builds still work (ccache goes on without the remote), only slower: a warning, not an error.
        return warn(
            f"remote {shown} unreachable ({reach.detail}): builds go on with the local cache only",
            "start the cache server or check the URL, host, port and credentials",
            f"{version_text}; probe took {reach.seconds * 1000:.0f} ms",
            remote=shown,
            reachable=False,
        )
    return ok(
        f"{shown} answers ({reach.detail}, {reach.seconds * 1000:.0f} ms); {version_text} supports it",
        f"features: {' '.join(sorted(features))}" if features else "features: unknown",
        remote=shown,
        reachable=True,
    )
