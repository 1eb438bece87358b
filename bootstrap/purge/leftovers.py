"""What pip leaves in site-packages that purge may delete: each leftover proven Triton's by its content.

A name is never the proof: `tritonclient-2.0.dist-info` has "triton" in its name and is not Triton's;
a folder called `triton/` may hold a user's files. Three kinds of leftover exist, each with its proof
(read from the files, links never followed; anything else in the way means "not proven", and the
folder is kept and reported):

- `<site-packages>/triton/` once no distribution owns files in it: it is the package of an owner this
  purge removes (that owner's RECORD listed files in it), or every file in it is one a RECORD in this
  site-packages (a live or a stashed metadata folder) lists under `triton/`, or bytecode in
  `__pycache__` (an empty folder has nothing to lose);
- pip's stash of `triton/` (`~riton`, left by an interrupted uninstall): the same file-by-file proof;
- a metadata folder pip cannot read (no METADATA: a broken install, or pip's `~riton-X.dist-info`
  stash): it holds only regular files, and its RECORD is a Triton distribution's (it lists files under
  `triton/` and nothing but `triton/`, metadata, bytecode and console scripts), or it has no RECORD and
  its top_level.txt names `triton`, or (a stash) it holds nothing but pip's own bookkeeping
  (INSTALLER, WHEEL, REQUESTED).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bootstrap.purge import metadata
from bootstrap.purge.metadata import PACKAGE, InstalledDist

BOOKKEEPING = frozenset({"INSTALLER", "WHEEL", "REQUESTED"})
_META_SUFFIXES = (".dist-info", ".egg-info")


@dataclass(frozen=True)
class Leftover:
    path: Path
    proof: str  # why its content is Triton's

    def to_json(self) -> dict[str, str]:
        return {"path": str(self.path), "proof": self.proof}


@dataclass(frozen=True)
class Kept:
    """Something that looks left over but whose content does not prove it Triton's: reported, never deleted."""

    path: Path
    why: str

    def to_json(self) -> dict[str, str]:
        return {"path": str(self.path), "why": self.why}


def _entries(folder: Path) -> list[tuple[str, int]] | None:
    """(path relative to `folder`, st_mode) of everything under it, links not followed; None: unreadable."""
    found: list[tuple[str, int]] = []
    try:
        for here, dirs, files in os.walk(folder, followlinks=False):
            for name in (*dirs, *files):
                path = Path(here) / name
                found.append((path.relative_to(folder).as_posix(), os.lstat(path).st_mode))
    except OSError:
        return None
    return found


def _is_bytecode(rel: str) -> bool:
    return rel.endswith(".pyc") and "__pycache__/" in f"/{rel}"


def listed_triton_files(site_packages: Path, dists: Iterable[InstalledDist]) -> set[str]:
    """`triton/...` paths some RECORD in `site_packages` lists: of the distributions read, and of pip's
    stashed metadata folders (`~...dist-info`)."""
    listed: set[str] = set()
    stashes = [
        metadata.read_dist(site_packages / n)
        for n in _names(site_packages)
        if n.startswith("~") and n.endswith(_META_SUFFIXES)
    ]
    for dist in (*dists, *stashes):
        listed.update(metadata.package_files(dist, (site_packages,)))
    return listed


def _names(folder: Path) -> list[str]:
    try:
        return sorted(e.name for e in folder.iterdir())
    except OSError:
        return []


def package_proof(folder: Path, listed: set[str], removed_here: bool) -> str | None:
    """Why `folder` (triton/ or its stash) is Triton's; None when its content does not prove it."""
    if removed_here:
        return "the package of a distribution this purge removes"
    entries = _entries(folder)
    if entries is None:
        return None
    for rel, mode in entries:
        if stat.S_ISDIR(mode) or _is_bytecode(rel):
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)) or f"{PACKAGE}/{rel}" not in listed:
            return None
    return "every file in it is one a Triton RECORD lists under triton/" if entries else "empty"


def record_is_tritons(dist: InstalledDist) -> bool:
    """Does `dist`'s file list describe a Triton distribution: files under triton/ and nothing but them,
    metadata, bytecode and console scripts?"""
    if not dist.files:
        return False
    roots = {Path(os.path.normpath(dist.meta_dir.parent))}
    package = next(iter(roots)) / PACKAGE
    bin_folder = Path(os.path.normpath(dist.meta_dir.parent / ".." / ".." / ".." / "bin"))
    in_package = False
    for entry in dist.files:
        path = metadata.resolve_entry(entry, dist.base)
        if path == package or package in path.parents:
            in_package = True
        elif path.parent in roots and path.name.endswith(_META_SUFFIXES):
            continue
        elif path.parent.parent in roots and path.parent.name.endswith(_META_SUFFIXES):
            continue
        elif _is_bytecode(entry) or path.parent == bin_folder:
            continue
        else:
            return False
    return in_package


def metadata_proof(folder: Path, dist: InstalledDist) -> str | None:
    """Why the unreadable metadata folder `folder` is Triton's; None when its content does not prove it."""
    entries = _entries(folder)
    if entries is None or any(not stat.S_ISREG(m) for rel, m in entries if not rel.startswith("licenses")):
        return None
    names = {rel for rel, _ in entries}
    if dist.files is not None:
        return "its RECORD lists Triton's files and nothing else" if record_is_tritons(dist) else None
    if dist.top_level:
        return "its top_level.txt names triton" if PACKAGE in dist.top_level else None
    if folder.name.startswith("~") and names <= BOOKKEEPING:
        return "pip's stash, holding nothing but pip's bookkeeping"
    return None


def find(
    site_packages: tuple[Path, ...],
    owned: bool,
    dists: list[InstalledDist],
    removed_packages: frozenset[Path] = frozenset(),
    removed_files: frozenset[str] = frozenset(),
) -> tuple[list[Leftover], list[Kept]]:
    """The leftovers of `site_packages` (proven) and what looks left over but is not proven (kept).

    owned: some distribution still owns files in triton/ (or its files are unknown): triton/ is no
    leftover. removed_packages: triton/ folders whose owner this purge removes; removed_files: the
    `triton/...` files their RECORDs listed (gone with them once pip has run, still the proof)."""
    leftovers: list[Leftover] = []
    kept: list[Kept] = []

    def judge(path: Path, proof: str | None, why: str) -> None:
        if proof is not None:
            leftovers.append(Leftover(path, proof))
        else:
            kept.append(Kept(path, why))

    for sp in site_packages:
        listed = listed_triton_files(sp, [d for d in dists if d.meta_dir.parent == sp]) | removed_files
        package = sp / PACKAGE
        if os.path.lexists(package) and not owned:
            if os.path.islink(package):
                judge(package, "a link (only the link goes, never what it points to)", "")
            else:
                judge(
                    package,
                    package_proof(package, listed, package in removed_packages),
                    "files in it that no Triton RECORD lists",
                )
        for name in _names(sp):
            path = sp / name
            if not metadata.is_stash_name(name) or os.path.islink(path) or not path.is_dir():
                continue
            if name.endswith(_META_SUFFIXES):
                judge(path, metadata_proof(path, metadata.read_dist(path)), "pip's stash of another distribution")
            else:
                judge(path, package_proof(path, listed, False), "files in it that no Triton RECORD lists")
    for dist in dists:
        if not dist.has_metadata and not os.path.islink(dist.meta_dir) and dist.meta_dir.is_dir():
            proof = metadata_proof(dist.meta_dir, dist)
            if proof is not None:
                leftovers.append(Leftover(dist.meta_dir, proof))
            elif PACKAGE in dist.meta_dir.name.lower():
                kept.append(Kept(dist.meta_dir, "metadata pip cannot read, not proven Triton's"))
    return leftovers, kept
