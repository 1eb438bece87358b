"""Who owns the `triton` import package in a Python environment: the scan `purge` and `doctor` share.

Ownership comes from what each distribution recorded as installed (RECORD / installed-files.txt)
and from editable installs (direct_url.json, setuptools finders and .pth files, egg-links), so any
distribution name that carries `triton/` is found. The scan only reads: files in site-packages,
`pip list` of the target interpreter (see pipbridge), and one `import triton` in a
fresh interpreter of the target.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.core.target import inside
from bootstrap.core.target import inside_answers as answers
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.purge import leftovers, metadata, ownership, pipbridge
from bootstrap.purge.leftovers import Kept, Leftover
from bootstrap.purge.metadata import PACKAGE, InstalledDist


@dataclass(frozen=True)
class Owner:
    """A distribution that provides files of the `triton` import package."""

    name: str
    version: str
    dist_info: Path  # its metadata folder (an .egg-info for legacy installs)
    files: tuple[str, ...]  # files under triton/, relative to site-packages
    editable: bool
    editable_path: str | None
    direct_url: dict[str, object] | None
    installer: str | None
    placeholder: bool  # PyPI's pytorch-triton 0.0.1 ("Should never be installed")
    record_missing: bool  # no RECORD / installed-files.txt: pip cannot uninstall it
    missing_files: tuple[str, ...] = ()  # recorded under triton/ but gone from disk (a half-uninstall)
    foreign: tuple[str, ...] = ()  # `path: why` of what pip would remove that is not Triton's (ownership.py)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "dist_info": str(self.dist_info),
            "files": len(self.files),
            "missing_files": len(self.missing_files),
            "editable": self.editable,
            "editable_path": self.editable_path,
            "direct_url": self.direct_url,
            "installer": self.installer,
            "placeholder": self.placeholder,
            "record_missing": self.record_missing,
            "foreign_files": list(self.foreign),
        }


@dataclass(frozen=True)
class TritonScan:
    site_packages: tuple[Path, ...]
    owners: tuple[Owner, ...]
    overlaps: dict[str, tuple[str, ...]]  # file path (relative to site-packages) -> owners (2+)
    leftovers: tuple[Path, ...]  # triton/ folders, pip stash folders, metadata pip cannot read: proven Triton's
    shadows: tuple[Path, ...]  # triton/ (or triton.py) in cwd, on PYTHONPATH, or added by a stray .pth
    import_location: str | None  # where `import triton` resolves in a fresh interpreter; None: fails
    import_error: str | None = None  # why `import triton` failed, when it did
    # Names pip lists; None when pip is unusable, or was not asked (no owners: nothing for it to judge).
    pip_listed: tuple[str, ...] | None = field(default=None)
    unowned_files: tuple[Path, ...] = ()  # files inside site-packages/triton/ that no owner lists
    leftover_proofs: tuple[Leftover, ...] = ()  # why each leftover is Triton's
    kept: tuple[Kept, ...] = ()  # looks left over, but its content does not prove it Triton's: never deleted

    def to_json(self) -> dict[str, object]:
        return {
            "site_packages": [str(p) for p in self.site_packages],
            "owners": [o.to_json() for o in self.owners],
            "overlaps": {path: list(names) for path, names in sorted(self.overlaps.items())},
            "leftovers": [str(p) for p in self.leftovers],
            "shadows": [str(p) for p in self.shadows],
            "import_location": self.import_location,
            "import_error": self.import_error,
            # null: pip was not asked (nothing owns triton/ files), so whether it works is not known.
            "pip_available": None if not self.owners and self.pip_listed is None else self.pip_listed is not None,
            "unowned_files": [str(p) for p in self.unowned_files],
            "leftover_proofs": [p.to_json() for p in self.leftover_proofs],
            "kept_not_proven": [k.to_json() for k in self.kept],
        }


def owners_in(dists: list[InstalledDist], site_packages: tuple[Path, ...]) -> list[Owner]:
    """The distributions among `dists` that provide `triton/`. Pure apart from reading files."""
    owners = []
    for dist in dists:
        files = metadata.package_files(dist, site_packages)
        editable = metadata.editable_path(dist.direct_url)
        record_missing = dist.has_metadata and dist.files is None and not dist.meta_dir.is_file()
        provides = bool(files)
        if editable is not None and metadata.editable_provides(dist):
            provides = True
        if record_missing and _may_provide_unrecorded(dist):
            provides = True
        if not provides or not dist.has_metadata:
            continue
        sp = dist.meta_dir.parent
        missing = tuple(f for f in files if not os.path.lexists(sp / f) and not f.endswith(".pyc"))
        owners.append(
            Owner(
                name=dist.name,
                version=dist.version,
                dist_info=dist.meta_dir,
                files=files,
                editable=editable is not None,
                editable_path=editable,
                direct_url=dist.direct_url,
                installer=dist.installer,
                placeholder=metadata.is_placeholder(dist, sp, files),
                record_missing=record_missing,
                missing_files=missing,
            )
        )
    return owners


def _may_provide_unrecorded(dist: InstalledDist) -> bool:
    """Without a file list, does this distribution say it provides `triton`? Its top_level.txt decides
    where there is one; else a name that is triton's own (triton, triton-*, pytorch-triton*) with a
    triton/ folder beside it. `tritonclient` or `triton-model-analyzer` without triton/ are not owners."""
    from packaging.utils import canonicalize_name

    if dist.top_level:
        return PACKAGE in dist.top_level
    key = canonicalize_name(dist.name)
    named = key == PACKAGE or key.startswith((f"{PACKAGE}-", f"pytorch-{PACKAGE}"))
    return named and os.path.lexists(dist.meta_dir.parent / PACKAGE)


def with_foreign_entries(owners: list[Owner], dists: list[InstalledDist], target: TargetPython) -> list[Owner]:
    """The owners, each with what its RECORD would make pip remove beyond Triton's files (ownership.py)."""
    from dataclasses import replace

    if not owners:
        return owners  # nothing to judge: spare reading what every other distribution claims
    by_folder = {d.meta_dir: d for d in dists}
    owning = {o.dist_info for o in owners}
    names = set().union(*(ownership.claimed_names(by_folder[o.dist_info]) for o in owners if o.dist_info in by_folder))
    claimed = ownership.claims((d for d in dists if d.meta_dir not in owning), names)  # what stays installed
    return [
        replace(
            o,
            foreign=ownership.foreign_entries(
                by_folder[o.dist_info], target.site_packages, target.scripts, target.executable, claimed
            ),
        )
        if o.dist_info in by_folder
        else o
        for o in owners
    ]


def egg_link_owners(site_packages: tuple[Path, ...], known: Collection[str]) -> list[Owner]:
    """Legacy `setup.py develop` installs: an egg-link in site-packages, metadata in the project."""
    from packaging.utils import canonicalize_name

    owners = []
    for sp in site_packages:
        for link in sorted(sp.glob("*.egg-link")):
            project = metadata.read_egg_link(metadata.read_text(link) or "")
            if project is None or not (project / PACKAGE).is_dir():
                continue
            infos = sorted(project.glob("*.egg-info"))
            dist = metadata.read_dist(infos[0]) if infos else None
            name = dist.name if dist else link.name[: -len(".egg-link")]
            if canonicalize_name(name) in known:
                continue
            owners.append(
                Owner(
                    name=name,
                    version=dist.version if dist else "",
                    dist_info=infos[0] if infos else link,
                    files=(),
                    editable=True,
                    editable_path=str(project),
                    direct_url=None,
                    installer=dist.installer if dist else None,
                    placeholder=False,
                    record_missing=False,
                )
            )
    return owners


def find_overlaps(owners: list[Owner]) -> dict[str, tuple[str, ...]]:
    """Files that two or more distributions claim (uninstalling one deletes the other's)."""
    claims: dict[str, list[str]] = {}
    for owner in owners:
        for path in owner.files:
            claims.setdefault(path, []).append(owner.name)
    return {path: tuple(names) for path, names in claims.items() if len(names) > 1}


def find_leftovers(
    site_packages: tuple[Path, ...],
    owners: list[Owner],
    dists: list[InstalledDist],
    removed: Collection[Owner] = (),
    recorded_files: frozenset[str] = frozenset(),
) -> tuple[list[Leftover], list[Kept]]:
    """triton/ with no owner, pip's `~riton` stash folders, and metadata folders pip cannot read: those
    whose content proves them Triton's (leftovers.py), and those that only look like it (kept).

    A triton/ folder counts as owned while any owner has files in it or lacks a file list (its files
    are unknown, so nothing of it may be called a leftover). removed: the owners this purge removes (their
    triton/ folder is proven Triton's by their RECORD even once pip has deleted it). recorded_files: the
    triton/ files of RECORDs an earlier purge of this environment saved in its journal before pip ran
    (the proof of a stash an interrupted uninstall left after deleting the RECORD itself).
    """
    owned = any(o.files or o.record_missing for o in owners)
    packages = frozenset(o.dist_info.parent / PACKAGE for o in removed if o.files)
    files = frozenset(f for o in removed for f in o.files) | recorded_files
    return leftovers.find(site_packages, owned, dists, packages, files)


def find_unowned(site_packages: tuple[Path, ...], owners: list[Owner]) -> list[Path]:
    """Files inside site-packages/triton/ that no owner lists (pip leaves them behind on uninstall)."""
    if any(o.record_missing for o in owners):
        return []  # its files are unknown: nothing may be called unowned
    claimed = {f for o in owners for f in o.files}
    unowned = []
    for sp in site_packages:
        package = sp / PACKAGE
        if package.is_symlink() or not package.is_dir():
            continue
        for folder, _dirs, files in os.walk(package):
            for name in files:
                path = Path(folder) / name
                rel = path.relative_to(sp).as_posix()
                if rel not in claimed and not (rel.endswith(".pyc") and "/__pycache__/" in rel):
                    unowned.append(path)
    return sorted(unowned)


def find_shadows(
    cwd: Path, environ: Mapping[str, str], site_packages: tuple[Path, ...], dists: list[InstalledDist]
) -> list[Path]:
    """triton packages that are not installed but sit earlier on sys.path or come from a stray .pth.

    `python -c`, `python -m` and the REPL put the current directory first on sys.path, and
    PYTHONPATH comes before site-packages: a `triton/` there wins over the installed one (or, without
    an __init__.py, turns triton into an empty namespace package when nothing else is found).
    """
    folders = [cwd]
    for entry in environ.get("PYTHONPATH", "").split(os.pathsep):
        folders.append(Path(entry) if entry else cwd)
    # .pth files that no distribution installed (conda develop, hand-written) add folders too.
    recorded: set[str] = set()
    for dist in dists:
        base = str(dist.base)
        for entry in dist.files or ():
            name = metadata.entry_name(entry)
            if name is None or name.endswith(".pth"):  # only .pth files are looked up here
                recorded.add(metadata.resolved_entry_text(entry, base))
    for sp in site_packages:
        for pth in sorted(sp.glob("*.pth")):
            if os.path.normpath(pth) not in recorded:
                folders.extend(metadata.pth_paths(metadata.read_text(pth) or "", sp))
    installed = {Path(os.path.normpath(sp)) for sp in site_packages}
    shadows: dict[Path, None] = {}
    for folder in folders:
        folder = Path(os.path.normpath(folder.absolute()))
        if folder in installed:
            continue
        for candidate in (folder / PACKAGE, folder / f"{PACKAGE}.py"):
            if candidate.exists():
                shadows[candidate] = None
    return list(shadows)


def import_probe(
    target: TargetPython,
    runner: Runner,
    *,
    cwd: Path | None,
    environ: Mapping[str, str] | None,
    isolated: bool = False,
) -> tuple[str | None, str | None]:
    """(where `import triton` resolves, why it failed) in a fresh interpreter of the target.

    isolated: `python -I` (no cwd, no PYTHONPATH, no user site): what the environment itself provides.
    Otherwise as the user would see it from `cwd` (first on sys.path) with `environ`'s PYTHONPATH.
    """
    env: dict[str, str | None] = {}
    if not isolated and environ is not None:
        env["PYTHONPATH"] = environ.get("PYTHONPATH") or None
    try:
        _, data = inside.run_json(
            runner,
            target.executable,
            "tritondev_triton.py",
            step="purge-probe",
            timeout=300,
            env=env,
            cwd=target.prefix if isolated else cwd,
            isolated=isolated,
            as_user_runs=not isolated,
        )
        found = answers.triton_import(data)
    except (CommandFailed, ToolMissing) as exc:
        return None, f"could not run {target.executable}: {exc.message}"
    except inside.BadAnswer as exc:
        return None, f"the import check in {target.executable} failed: {exc}"
    if found.import_error is not None:
        return None, found.import_error
    return found.location or "(namespace package)", None


def read_site_packages(site_packages: tuple[Path, ...]) -> list[InstalledDist]:
    return [metadata.read_dist(m) for sp in site_packages for m in metadata.metadata_folders(sp)]


def _pip_listing(runner: Runner, target: TargetPython) -> dict[str, pipbridge.Listed] | None:
    try:
        return pipbridge.installed(runner, target.executable, cwd=target.prefix)
    except (CommandFailed, ToolMissing, ValueError):
        return None  # no pip in the target: the file scan still stands


def scan_environment(
    target: TargetPython,
    runner: Runner,
    *,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    recorded_files: frozenset[str] = frozenset(),
) -> TritonScan:
    """Everything that provides, half-provides or shadows `triton` in the target environment.

    cwd / environ: where the user works and their environment (for shadows and the import check);
    default the current ones. recorded_files: see find_leftovers (from the purge journal).
    """
    from packaging.utils import canonicalize_name

    cwd = Path.cwd() if cwd is None else cwd
    environ = os.environ if environ is None else environ
    site_packages = target.site_packages
    dists = read_site_packages(site_packages)
    owners = owners_in(dists, site_packages)
    known = {canonicalize_name(o.name) for o in owners}
    owners += egg_link_owners(site_packages, known)
    # The two processes (pip's listing and the import check) run beside the reading of the RECORDs.
    # pip's listing only judges owners (one pip cannot uninstall is a blocker): with none, pip is not
    # asked, which spares setup's purge step a start of pip (0.3 s) in every environment without a triton.
    with ThreadPoolExecutor(max_workers=2) as pool:
        listing = pool.submit(_pip_listing, runner, target) if owners else None
        probe = pool.submit(import_probe, target, runner, cwd=cwd, environ=environ)
        owners = with_foreign_entries(owners, dists, target)
        listed = listing.result() if listing is not None else None
        location, error = probe.result()
    proven, kept = find_leftovers(site_packages, owners, dists, recorded_files=recorded_files)
    return TritonScan(
        site_packages=site_packages,
        owners=tuple(owners),
        overlaps=find_overlaps(owners),
        leftovers=tuple(p.path for p in proven),
        leftover_proofs=tuple(proven),
        kept=tuple(kept),
        shadows=tuple(find_shadows(cwd, environ, site_packages, dists)),
        import_location=location,
        import_error=error,
        pip_listed=tuple(sorted(listed)) if listed is not None else None,
        unowned_files=tuple(find_unowned(site_packages, owners)) if owners else (),
    )
