"""LLVM builds kept by key, their records (stamps), and the registry that lets workspaces share them.

LLVM builds are kept by key (commit, build type, targets, projects, compiler, linker) under
<workspace>/build/llvm/<key>, with a record inside the build folder (`.tritondev-llvm.json`: the
configure and build fingerprints and the source it was configured from), so any workspace that uses
the folder knows what state it is in. Finished builds are also listed in a small registry
($XDG_CACHE_HOME/tritondev/llvm-builds.json): a second workspace that needs the same key links to
that build instead of building again, as long as the build and the LLVM checkout it was configured
from are still there.

Prebuilt packages (--llvm prebuilt) live in the same place and the same registry, keyed by their
name (`llvm-<hash8>-<suffix>[-<build number>]`: commit, suffix and build number), with a stamp of kind
"prebuilt" that names the package and its sha256; `locate_package` finds one this workspace
unpacked, or one another workspace did.

`observe` reads what is on disk (no process); `locate` and `locate_package` are the pure choices of
the folder to use; `link_reused`, `write_stamp` and `register` are the writes the executor makes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.fsutil import read_json
from bootstrap.core.io.writes import replace_json
from bootstrap.git.head import head_commit

if TYPE_CHECKING:
    from bootstrap.pipeline.llvm.package import Package

LLVM_STAMP = ".tritondev-llvm.json"
REGISTRY_NAME = "llvm-builds.json"


def registry_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME", str(Path.home()))) / ".cache")
    return Path(base) / "tritondev" / REGISTRY_NAME


@dataclass(frozen=True)
class LlvmSite:
    """One LLVM build folder as found on disk."""

    build: Path
    source: Path | None  # the LLVM checkout it was configured from (None: its record names none)
    stamp: Mapping[str, Any] = field(default_factory=dict)
    configured: bool = False  # build.ninja is there
    source_ok: bool = False  # <source>/llvm/CMakeLists.txt is there (a build tree refers to its source tree)
    has_bin: bool = False  # bin/ is there (an unpacked package has no build.ninja)
    source_head: str | None = None  # the commit the source checkout is at now (it may have moved on)

    @property
    def usable(self) -> bool:
        return self.configured and self.source_ok


def read_site(build: Path, source: Path | None) -> LlvmSite:
    """The build folder `build`; `source` None: the one its stamp names."""
    stamp = read_json(build / LLVM_STAMP)
    stamp = stamp if isinstance(stamp, dict) else {}
    if source is None:
        named = stamp.get("source")
        source = Path(named) if isinstance(named, str) and named.startswith("/") else None
    configured = (build / "build.ninja").is_file()
    source_ok = source is not None and (source / "llvm/CMakeLists.txt").is_file()
    head = head_commit(source) if source_ok and source is not None else None
    return LlvmSite(build, source, stamp, configured, source_ok, (build / "bin").is_dir(), head)


@dataclass(frozen=True)
class LlvmFolders:
    """What is on disk for one key: this workspace's folder (or link) and other workspaces' builds."""

    mine: Path  # <workspace>/build/llvm/<key>
    own: LlvmSite | None  # `mine` as a real folder of this workspace
    linked: LlvmSite | None  # where `mine` links to, when it is a link
    registered: tuple[LlvmSite, ...] = ()  # builds of this key other workspaces listed in the registry


def observe(mine: Path, llvm_src: Path, environ: Mapping[str, str] | None = None) -> LlvmFolders:
    if mine.is_symlink():
        return LlvmFolders(mine, None, read_site(Path(os.readlink(mine)), None))
    if mine.is_dir():
        return LlvmFolders(mine, read_site(mine, llvm_src), None)
    data = read_json(registry_path(environ))
    entries = data.get(mine.name) if isinstance(data, dict) else None
    sites = (
        read_site(Path(str(e.get("build", ""))), Path(str(e.get("source", ""))))
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict)
    )
    return LlvmFolders(mine, None, None, tuple(s for s in sites if s.build.resolve() != mine.resolve()))


@dataclass(frozen=True)
class LlvmLocation:
    build: Path  # where the build is (a folder of this workspace, or one registered by another)
    source: Path  # the LLVM checkout it is configured from
    reused_from: str | None
    stamp: Mapping[str, Any] = field(default_factory=dict)
    configured: bool = False
    link_to: Path | None = None  # make <workspace>/build/llvm/<key> a link to this build first
    unlink: bool = False  # remove <workspace>/build/llvm/<key>, a link to a build that is gone


def locate(folders: LlvmFolders, llvm_src: Path, build_fp: str, commit: str) -> LlvmLocation:
    """This workspace's build folder for the key, or a finished one of another workspace. Pure.

    Another workspace's build is used only while its source checkout is still at `commit`: a build
    tree refers to its source tree's headers, so once that checkout moved on (an LLVM bump there),
    compiling Triton against the build would read another LLVM's API.
    """
    mine = folders.mine
    if folders.linked is not None:
        site = folders.linked
        if site.stamp and site.usable and site.source is not None and site.source_head == commit:
            return LlvmLocation(site.build, site.source, str(site.build), site.stamp, site.configured)
        return LlvmLocation(mine, llvm_src, None, unlink=True)  # gone, or its checkout moved on
    if folders.own is not None:
        return LlvmLocation(mine, llvm_src, None, folders.own.stamp, folders.own.configured)
    for site in folders.registered:
        if (
            site.stamp.get("build_fingerprint") == build_fp
            and site.usable
            and site.source is not None
            and site.source_head == commit
        ):
            return LlvmLocation(site.build, site.source, str(site.build), site.stamp, True, link_to=site.build)
    return LlvmLocation(mine, llvm_src, None)


PREBUILT_KIND = "prebuilt"


def package_ready(site: LlvmSite, package: Package) -> bool:
    """The site is `package`, unpacked completely (its stamp is written last) with the right sum."""
    stamp = site.stamp
    return (
        stamp.get("kind") == PREBUILT_KIND
        and stamp.get("package") == package.name
        and (package.sha256 is None or stamp.get("sha256") == package.sha256)
        and site.has_bin
    )


def locate_package(folders: LlvmFolders, package: Package) -> LlvmLocation:
    """Where the package is (to be) unpacked: this workspace's folder, or another workspace's (linked). Pure."""
    mine = folders.mine
    if folders.linked is not None:
        if package_ready(folders.linked, package):
            site = folders.linked
            return LlvmLocation(site.build, site.build, str(site.build), site.stamp, True)
        return LlvmLocation(mine, mine, None, unlink=True)
    if folders.own is not None and package_ready(folders.own, package):
        return LlvmLocation(mine, mine, None, folders.own.stamp, True)
    for site in folders.registered:
        if package_ready(site, package):
            return LlvmLocation(site.build, site.build, str(site.build), site.stamp, True, link_to=site.build)
    return LlvmLocation(mine, mine, None)


def link_reused(mine: Path, location: LlvmLocation) -> None:
    """Make the workspace's folder for the key point where the plan said (a link, or no stale link)."""
    if location.unlink and mine.is_symlink():
        mine.unlink()
    if location.link_to is not None:
        mine.parent.mkdir(parents=True, exist_ok=True)
        tmp = mine.with_name(mine.name + ".link")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(location.link_to)
        os.replace(tmp, mine)


def write_stamp(build: Path, stamp: Mapping[str, Any]) -> None:
    replace_json(build / LLVM_STAMP, dict(stamp))


def register(key: str, build: Path, source: Path, environ: Mapping[str, str] | None = None) -> None:
    """List a finished build in the registry (dropping entries whose folders are gone)."""
    path = registry_path(environ)
    data = read_json(path)
    if not isinstance(data, dict):
        data = {}
    old = data.get(key)
    entries = [e for e in (old if isinstance(old, list) else []) if isinstance(e, dict)]
    entries = [e for e in entries if Path(str(e.get("build"))) != build and Path(str(e.get("build"))).is_dir()]
    entries.append({"build": str(build), "source": str(source), "registered": time.time()})
    data[key] = entries
    try:
        replace_json(path, data)
    except OSError:
        pass  # only an optimisation for other workspaces
