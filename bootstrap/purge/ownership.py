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
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from bootstrap.purge.metadata import PACKAGE, InstalledDist, read_text, resolve_entry

# bin/ files of the environment itself: never a distribution's to remove.
_PROTECTED_SCRIPTS = re.compile(r"^(python|pypy|pip|activate|deactivate|easy_install)", re.IGNORECASE)


def normalized(name: str) -> str:
    """The form of a distribution name in file names (PEP 427/503: runs of -_. become _), lower-case."""
    return re.sub(r"[-_.]+", "_", name).lower()


def claims(dists: Iterable[InstalledDist]) -> dict[Path, set[Path]]:
    """Every path the distributions list -> the metadata folders of those that list it."""
    claimed: dict[Path, set[Path]] = {}
    for dist in dists:
        for entry in dist.files or ():
            claimed.setdefault(resolve_entry(entry, dist.base), set()).add(dist.meta_dir)
    return claimed


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


def _inside(path: Path, folder: Path) -> bool:
    """Is `path` `folder` or below it, lexically and with the links of its parent folders resolved?"""
    folder = Path(os.path.normpath(folder))
    if path != folder and folder not in path.parents:
        return False
    real_folder = Path(os.path.realpath(folder))
    real_parent = Path(os.path.realpath(path.parent))
    return real_parent == real_folder or real_folder in real_parent.parents or path == folder


def _own_hook(path: Path, dist: InstalledDist, site_packages: tuple[Path, ...]) -> bool:
    """An editable-install hook or a repaired wheel's library folder of this distribution, in site-packages."""
    name = normalized(dist.name)
    for sp in site_packages:
        sp = Path(os.path.normpath(sp))
        if path.parent == sp or path.parent == sp / "__pycache__":
            if path.name.startswith("__editable__") and name in normalized(path.name):
                return True
        if _inside(path, sp / f"{name}.libs") and path != sp / f"{name}.libs":
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
    claimed: Mapping[Path, set[Path]],
) -> str | None:
    """Why pip must not remove `path` on behalf of `dist`; None when it belongs to Triton or to `dist`.

    claimed: the paths that distributions which stay (not owners of triton/) list."""
    if any(_inside(path, Path(os.path.normpath(sp)) / PACKAGE) for sp in site_packages):
        return None
    others = claimed.get(path, set()) - {dist.meta_dir}
    if others:
        return f"{sorted(others)[0].name} lists it too"
    if _inside(path, dist.meta_dir) and path != Path(os.path.normpath(dist.meta_dir)):
        return None
    if _own_hook(path, dist, site_packages):
        return None
    return _script_problem(path, dist, scripts, executable)


def _triton_escape(path: Path, site_packages: tuple[Path, ...]) -> bool:
    """Is `path` lexically under triton/ but reached through a link that leads out of it?"""
    for sp in site_packages:
        package = Path(os.path.normpath(sp)) / PACKAGE
        if (path == package or package in path.parents) and not _inside(path, package):
            return True
    return False


def foreign_entries(
    dist: InstalledDist,
    site_packages: tuple[Path, ...],
    scripts: Path,
    executable: Path,
    claimed: Mapping[Path, set[Path]],
) -> tuple[str, ...]:
    """`path: why` for each path pip would remove for `dist` that does not belong to Triton or to it."""
    found: list[str] = []
    for entry in dist.files or ():
        path = resolve_entry(entry, dist.base)
        if _triton_escape(path, site_packages):
            found.append(f"{entry}: it leads out of triton/ through a symbolic link")
            continue
        problem = entry_problem(path, dist, site_packages, scripts, executable, claimed)
        if problem is not None:
            found.append(f"{entry}: {problem}")
    for name in script_names(dist):
        path = Path(os.path.normpath(scripts)) / name
        problem = None if "/" not in name else "it is not a plain file name"
        problem = problem or entry_problem(path, dist, site_packages, scripts, executable, claimed)
        if problem is not None:
            found.append(f"console script {name}: {problem}")
    return tuple(dict.fromkeys(found))
