"""Pure readers of installed-distribution metadata in a site-packages folder.

Everything here only reads files (RECORD, installed-files.txt, METADATA, direct_url.json, INSTALLER,
top_level.txt, .pth, egg-link, setuptools' editable finders); nothing runs a process. Ownership of
the `triton/` import package is decided from what each distribution says it installed, never from a
list of known distribution names: PyTorch has shipped the same `triton/` under at least seven names.
"""

from __future__ import annotations

import ast
import base64
import csv
import hashlib
import io
import os
import re
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from urllib.parse import unquote, urlparse

from bootstrap.core.fsutil import parse_json, read_regular

PACKAGE = "triton"

# What pip's own placeholder wheel on PyPI (`pytorch-triton 0.0.1`) puts in triton/__init__.py.
PLACEHOLDER_TEXT = "Should never be installed"
# RECORD hash of that file in the one placeholder wheel on PyPI (pytorch_triton-0.0.1-py3-none-any.whl).
PLACEHOLDER_INIT_HASH = "sha256=qDkMFHwZxtLDJwlf0NPdKBBg9OoAjKm57dp0UOlBUWU"


@dataclass(frozen=True)
class InstalledDist:
    """One *.dist-info or *.egg-info entry of a site-packages folder, as read from disk."""

    name: str
    version: str
    meta_dir: Path
    has_metadata: bool  # METADATA / PKG-INFO present: pip can see this distribution
    files: tuple[str, ...] | None  # RECORD / installed-files.txt entries, as written; None = no file list
    installer: str | None
    direct_url: dict[str, object] | None
    top_level: tuple[str, ...]

    @property
    def base(self) -> Path:
        """The folder RECORD paths are relative to (installed-files.txt: the egg-info itself)."""
        if self.meta_dir.suffix == ".egg-info" and self.meta_dir.is_dir():
            return self.meta_dir
        return self.meta_dir.parent


# Metadata files are small; a file this large in a metadata folder is not one (and is not read).
MAX_METADATA_BYTES = 64 << 20


def read_text(path: Path) -> str | None:
    """A metadata file's text; None when it is missing, not a regular file (a FIFO never blocks), or too big."""
    try:
        raw = read_regular(path, limit=MAX_METADATA_BYTES + 1)
    except (OSError, ValueError):
        return None
    if len(raw) > MAX_METADATA_BYTES:
        return None
    return raw.decode("utf-8", errors="replace")


def parse_record(text: str) -> list[str]:
    """Paths listed in a wheel RECORD (CSV: path,hash,size). A RECORD pip was killed while writing ends
    mid-row, and a damaged one may hold NUL bytes (csv refuses them before Python 3.11, paths always):
    the rows before the damage are read, a row that cannot be a path is left out."""
    paths: list[str] = []
    try:
        for row in csv.reader(io.StringIO(text)):
            if row and row[0] and "\0" not in row[0]:
                paths.append(row[0])
    except csv.Error:
        pass
    return paths


def parse_installed_files(text: str) -> list[str]:
    """Paths listed in a legacy egg-info installed-files.txt (one per line, relative to the egg-info)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_metadata(text: str) -> tuple[str | None, str | None]:
    """Name and Version from METADATA / PKG-INFO (RFC 822 headers)."""
    headers = HeaderParser().parsestr(text, headersonly=True)
    name, version = headers.get("Name"), headers.get("Version")
    return (name.strip() if name else None, version.strip() if version else None)


_META_NAME = re.compile(r"^(?P<name>.+?)-(?P<version>[^-]+?)(?:-py\d.*)?\.(?:dist|egg)-info$")


def name_from_folder(folder: str) -> tuple[str, str]:
    """Name and version encoded in a metadata folder name (`pytorch_triton-3.5.0+git1.dist-info`)."""
    match = _META_NAME.match(folder)
    if match is None:
        return folder.rsplit(".", 1)[0], ""
    return match["name"], match["version"]


def editable_path(direct_url: dict[str, object] | None) -> str | None:
    """The project folder of an editable install, from direct_url.json (PEP 610), else None."""
    if not direct_url:
        return None
    dir_info = direct_url.get("dir_info")
    if not isinstance(dir_info, dict) or not dir_info.get("editable"):
        return None
    url = direct_url.get("url")
    return file_url_path(url) if isinstance(url, str) else None


def file_url_path(url: str) -> str | None:
    """The local path of a file:// URL, else None."""
    try:
        parsed = urlparse(url)
    except ValueError:  # direct_url.json is outside input: `file://[` is not a URL
        return None
    path = unquote(parsed.path)
    return path if parsed.scheme == "file" and "\0" not in path else None


def pth_paths(text: str, base: Path) -> list[Path]:
    """Folders a .pth file adds to sys.path (import lines and comments are not paths)."""
    paths = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
            continue
        paths.append(Path(os.path.normpath(base / line)))
    return paths


def finder_mapping(text: str) -> dict[str, str]:
    """MAPPING of a setuptools editable finder (`__editable___*_finder.py`): package -> source folder.

    Read with the ast module, never imported: importing would run code from the environment.
    """
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    for node in tree.body:
        target: ast.expr | None = None
        expr: ast.expr | None = None
        if isinstance(node, ast.AnnAssign):
            target, expr = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, expr = node.targets[0], node.value
        if isinstance(target, ast.Name) and target.id == "MAPPING" and expr is not None:
            try:
                value = ast.literal_eval(expr)
            except ValueError:
                return {}
            if isinstance(value, dict):
                return {str(k): str(v) for k, v in value.items()}
    return {}


def read_egg_link(text: str) -> Path | None:
    """The project folder named by a legacy `setup.py develop` egg-link (its first line)."""
    first = text.splitlines()[0].strip() if text.strip() else ""
    return Path(first) if first else None


def is_stash_name(name: str) -> bool:
    """pip's temporary names for triton files it was moving when it was interrupted (`~riton`, ...).

    pip renames a folder it is replacing by swapping leading characters for `~`; such folders are
    never owned by a distribution and pip warns "Ignoring invalid distribution ~riton" forever.
    """
    if not name.startswith("~"):
        return False
    if name.endswith((".dist-info", ".egg-info")):
        return "riton" in name
    head = re.split(r"[-.]", name.lstrip("~-"), maxsplit=1)[0]
    return len(head) >= 4 and PACKAGE.endswith(head)


def read_dist(meta_dir: Path) -> InstalledDist:
    """Everything tritondev needs from one metadata folder (or a distutils egg-info file)."""
    folder_name, folder_version = name_from_folder(meta_dir.name)
    if meta_dir.is_file():  # distutils wrote PKG-INFO as a bare `name-ver.egg-info` file
        meta_text = read_text(meta_dir)
        name, version = parse_metadata(meta_text) if meta_text else (None, None)
        return InstalledDist(
            name or folder_name, version or folder_version, meta_dir, meta_text is not None, None, None, None, ()
        )
    meta_text = read_text(meta_dir / "METADATA") or read_text(meta_dir / "PKG-INFO")
    name, version = parse_metadata(meta_text) if meta_text else (None, None)
    files: tuple[str, ...] | None = None
    record = read_text(meta_dir / "RECORD")
    if record is not None:
        files = tuple(parse_record(record))
    else:
        installed = read_text(meta_dir / "installed-files.txt")
        if installed is not None:
            files = tuple(parse_installed_files(installed))
    installer = read_text(meta_dir / "INSTALLER")
    direct_url: dict[str, object] | None = None
    direct_text = read_text(meta_dir / "direct_url.json")
    if direct_text:
        try:
            loaded = parse_json(direct_text)
            direct_url = loaded if isinstance(loaded, dict) else None
        except ValueError:
            direct_url = None
    top_text = read_text(meta_dir / "top_level.txt") or ""
    return InstalledDist(
        name=name or folder_name,
        version=version or folder_version,
        meta_dir=meta_dir,
        has_metadata=meta_text is not None,
        files=files,
        installer=(installer.strip() or None) if installer is not None else None,
        direct_url=direct_url,
        top_level=tuple(line.strip() for line in top_text.splitlines() if line.strip()),
    )


def metadata_folders(site_packages: Path) -> list[Path]:
    """Every *.dist-info / *.egg-info entry directly in `site_packages`, sorted."""
    try:
        entries = sorted(site_packages.iterdir())
    except OSError:
        return []
    return [e for e in entries if e.name.endswith((".dist-info", ".egg-info")) and not e.name.startswith("~")]


def resolved_entry_text(entry: str, base: str) -> str:
    """resolve_entry as text. A scan resolves every RECORD entry of the environment (tens of thousands
    where torch and CUDA's wheels are installed): strings, not Path objects, keep that to milliseconds."""
    return os.path.normpath(entry if os.path.isabs(entry) else os.path.join(base, entry))


def resolve_entry(entry: str, base: Path) -> Path:
    """An absolute, normalised path for a RECORD entry (which may climb with ../ to bin/ or lib64/)."""
    return Path(resolved_entry_text(entry, str(base)))


def package_files(dist: InstalledDist, site_packages: tuple[Path, ...]) -> tuple[str, ...]:
    """The entries of `dist`'s file list inside `<site-packages>/triton/`, as `triton/...` paths."""
    if not dist.files:
        return ()
    # Normalised absolute paths on both sides: "inside root" is "root itself or root + / + more".
    roots = [os.path.join(os.path.normpath(sp), PACKAGE) for sp in site_packages]
    base = str(dist.base)
    # Resolving only drops components: unless the base folder itself is under a triton/, a path there gets
    # its "triton" component from the entry's own text, and an entry without the word cannot be one.
    needs_word = not any(path_below(os.path.normpath(base), root) for root in roots)
    found: dict[str, None] = {}
    for entry in dist.files:
        if needs_word and PACKAGE not in entry:
            continue
        path = resolved_entry_text(entry, base)
        for root in roots:
            if path == root:
                found[PACKAGE] = None
                break
            if path.startswith(root) and path[len(root)] == os.sep:
                found[f"{PACKAGE}/{path[len(root) + 1 :]}"] = None
                break
    return tuple(found)


def path_below(path: str, folder: str) -> bool:
    """Is the normalised `path` `folder` or below it, lexically?"""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def entry_name(entry: str) -> str | None:
    """The file name a RECORD entry resolves to, read off its text; None when resolving decides it (an
    entry ending in "." or ".." or a slash)."""
    last = entry.rsplit("/", 1)[-1]
    return None if last in ("", ".", "..") else last


def editable_provides(dist: InstalledDist) -> bool:
    """Does this editable install make `import triton` resolve into its project folder?

    setuptools (PEP 660) writes either a finder module with a MAPPING or a .pth naming the source
    folder; other backends at least list the package in top_level.txt.
    """
    for entry in dist.files or ():
        path = resolve_entry(entry, dist.base)
        if path.name.endswith("_finder.py") and path.name.startswith("__editable__"):
            if PACKAGE in finder_mapping(read_text(path) or ""):
                return True
        elif path.suffix == ".pth":
            for folder in pth_paths(read_text(path) or "", path.parent):
                if (folder / PACKAGE).is_dir():
                    return True
    return PACKAGE in dist.top_level


def record_hashes(dist: InstalledDist) -> dict[Path, str]:
    """RECORD's `sha256=...` per resolved path (empty without a RECORD)."""
    text = read_text(dist.meta_dir / "RECORD") if dist.meta_dir.is_dir() else None
    if not text:
        return {}
    hashes: dict[Path, str] = {}
    try:
        for row in csv.reader(io.StringIO(text)):
            if len(row) > 1 and row[0] and row[1] and "\0" not in row[0]:
                hashes[resolve_entry(row[0], dist.base)] = row[1]
    except csv.Error:
        pass  # cut or damaged: the rows before
    return hashes


def file_hash(path: Path) -> str | None:
    """A file's hash in RECORD's notation (urlsafe base64 sha256, no padding)."""
    try:
        digest = hashlib.sha256(read_regular(path)).digest()
    except (OSError, ValueError):
        return None
    return "sha256=" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def is_placeholder(dist: InstalledDist, site_packages: Path, files: tuple[str, ...]) -> bool:
    """True for PyPI's `pytorch-triton 0.0.1`, whose triton/__init__.py only raises an error.

    Judged by what this distribution itself installed: its RECORD hash of triton/__init__.py is the
    placeholder's, or the file on disk is this distribution's (hash matches) and says so. Another
    distribution sharing that file is never mistaken for the placeholder.
    """
    init = f"{PACKAGE}/__init__.py"
    if init not in files:
        return False
    recorded = record_hashes(dist).get(Path(os.path.normpath(site_packages / init)))
    if recorded == PLACEHOLDER_INIT_HASH:
        return True
    text = read_text(site_packages / init)
    on_disk = file_hash(site_packages / init)
    return text is not None and PLACEHOLDER_TEXT in text and recorded is not None and recorded == on_disk
