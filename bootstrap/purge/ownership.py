"""What a purge may remove: the files that belong to Triton, and nothing a RECORD merely claims.

`pip uninstall NAME` deletes every path the distribution's RECORD (or installed-files.txt) lists,
plus a script in the environment's bin/ for every console or GUI script its entry_points.txt names.
Those files are outside input: a broken or crafted RECORD may list `../` paths into other packages,
absolute paths, another distribution's files, the environment's own bin/python, or a path through a
symlink out of site-packages. So before pip runs, every such path of every owner is checked, and the
purge stops (exit 6, nothing removed) naming the first one that is not allowed.

Allowed, and nothing else (paths compared after normalising, symlinks in their folders resolved):
- files under `<site-packages>/triton/`, reached without leaving it through a link;
- the owner's own metadata folder (`<name>-<version>.dist-info/` or `.egg-info/`);
- what an install writes for the owner itself next to it: its editable-install hooks
  (`__editable__*<name>*` files and their `__pycache__`), and the `<name>.libs/` folder of a
  repaired wheel;
- its console scripts in the environment's bin/ folder, named in its entry_points.txt, that are
  regular files and not the interpreter, `activate*`, `pip*` or any file of the venv itself;
and in every case only a path no other distribution of the environment also lists.
"""

from __future__ import annotations

import configparser
import functools
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

from bootstrap.purge.metadata import (
    PACKAGE,
    InstalledDist,
    entry_name,
    path_below,
    read_text,
    resolve_entry,
    resolved_entry_text,
)

# bin/ files of the environment itself: never a distribution's to remove.
_PROTECTED_SCRIPTS = re.compile(r"^(python|pypy|pip|activate|deactivate|easy_install)", re.IGNORECASE)


def normalized(name: str) -> str:
    """The form of a distribution name in file names (PEP 427/503: runs of -_. become _), lower-case."""
    return re.sub(r"[-_.]+", "_", name).lower()


def claims(dists: Iterable[InstalledDist], names: Collection[str] | None = None) -> dict[str, set[Path]]:
    """Every path the distributions list (as resolved_entry_text writes it) -> the metadata folders of
    those that list it. Text keys: an environment with torch and CUDA's wheels lists tens of thousands.

    names: only paths with one of these file names are asked about (claimed_names), so only entries that
    may end in one are resolved; an entry ending in ".." or "." is resolved whatever its name."""
    claimed: dict[str, set[Path]] = {}
    for dist in dists:
        base = str(dist.base)
        for entry in dist.files or ():
            if names is not None:
                name = entry_name(entry)
                if name is not None and name not in names:
                    continue
            claimed.setdefault(resolved_entry_text(entry, base), set()).add(dist.meta_dir)
    return claimed


def claimed_names(dist: InstalledDist) -> set[str]:
    """The file names of every path foreign_entries asks `claims` about for `dist`."""
    base = str(dist.base)
    return {os.path.basename(resolved_entry_text(e, base)) for e in dist.files or ()} | set(script_names(dist))


def script_names(dist: InstalledDist) -> tuple[str, ...]:
    """Names of the console and GUI scripts in the distribution's entry_points.txt."""
    text = read_text(dist.meta_dir / "entry_points.txt") if dist.meta_dir.is_dir() else None
    if not text:
        return ()
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep the names' case
    try:
        parser.read_string(text)
    except configparser.Error:
        return ("(an entry_points.txt that cannot be read)",)
    return tuple(
        name
        for section in ("console_scripts", "gui_scripts")
        if parser.has_section(section)
        for name in parser.options(section)
    )


RealPath = Callable[[str], str]


def real_paths() -> RealPath:
    """os.path.realpath, each folder resolved once: for one check of one RECORD, whose thousands of files
    sit in a few dozen folders (a fresh one per check, so no answer outlives it)."""
    return functools.cache(os.path.realpath)


def _inside(path: Path, folder: Path, real: RealPath = os.path.realpath) -> bool:
    """Is `path` `folder` or below it, lexically and with the links of its parent folders resolved?"""
    folder_text, path_text = os.path.normpath(folder), str(path)
    if not path_below(path_text, folder_text):
        return False
    return path_text == folder_text or path_below(real(os.path.dirname(path_text)), real(folder_text))


def _own_hook(path: Path, dist: InstalledDist, site_packages: tuple[Path, ...], real: RealPath) -> bool:
    """An editable-install hook or a repaired wheel's library folder of this distribution, in site-packages."""
    name = normalized(dist.name)
    for sp in site_packages:
        sp = Path(os.path.normpath(sp))
        if path.parent == sp or path.parent == sp / "__pycache__":
            if path.name.startswith("__editable__") and name in normalized(path.name):
                return True
        if _inside(path, sp / f"{name}.libs", real) and path != sp / f"{name}.libs":
            return True
    return False


def _script_problem(path: Path, dist: InstalledDist, scripts: Path, executable: Path) -> str | None:
    if path.parent != Path(os.path.normpath(scripts)):
        return "it is outside what belongs to Triton"
    if path.name not in script_names(dist):
        return "it is a file in bin/ that its entry_points.txt does not name"
    if _PROTECTED_SCRIPTS.match(path.name) or path.name == executable.name:
        return "it is a file of the environment itself"
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return "it is not a regular file (the environment's interpreter links are)"
    return None


def entry_problem(
    path: Path,
    dist: InstalledDist,
    site_packages: tuple[Path, ...],
    scripts: Path,
    executable: Path,
    claimed: Mapping[str, set[Path]],
    real: RealPath = os.path.realpath,
) -> str | None:
    """Why pip must not remove `path` on behalf of `dist`; None when it belongs to Triton or to `dist`.

    claimed: the paths that distributions which stay (not owners of triton/) list."""
    if any(_inside(path, Path(os.path.normpath(sp)) / PACKAGE, real) for sp in site_packages):
        return None
    others = claimed.get(os.path.normpath(path), set()) - {dist.meta_dir}
    if others:
        return f"{sorted(others)[0].name} lists it too"
    if _inside(path, dist.meta_dir, real) and path != Path(os.path.normpath(dist.meta_dir)):
        return None
    if _own_hook(path, dist, site_packages, real):
        return None
    return _script_problem(path, dist, scripts, executable)


def _triton_escape(path: Path, site_packages: tuple[Path, ...], real: RealPath) -> bool:
    """Is `path` lexically under triton/ but reached through a link that leads out of it?"""
    for sp in site_packages:
        package = Path(os.path.normpath(sp)) / PACKAGE
        if path_below(str(path), str(package)) and not _inside(path, package, real):
            return True
    return False


def foreign_entries(
    dist: InstalledDist,
    site_packages: tuple[Path, ...],
    scripts: Path,
    executable: Path,
    claimed: Mapping[str, set[Path]],
) -> tuple[str, ...]:
    """`path: why` for each path pip would remove for `dist` that does not belong to Triton or to it."""
    found: list[str] = []
    real = real_paths()
    for entry in dist.files or ():
        path = resolve_entry(entry, dist.base)
        if _triton_escape(path, site_packages, real):
            found.append(f"{entry}: it leads out of triton/ through a symbolic link")
            continue
        problem = entry_problem(path, dist, site_packages, scripts, executable, claimed, real)
        if problem is not None:
            found.append(f"{entry}: {problem}")
    for name in script_names(dist):
        path = Path(os.path.normpath(scripts)) / name
        problem = None if "/" not in name else "it is not a plain file name"
        problem = problem or entry_problem(path, dist, site_packages, scripts, executable, claimed, real)
        if problem is not None:
            found.append(f"console script {name}: {problem}")
    return tuple(dict.fromkeys(found))
