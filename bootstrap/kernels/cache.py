"""The Triton kernel cache: find it, read its entries, and plan what to prune or clear.

Layout (triton `runtime/cache.py`, `compiler/compiler.py`): the cache folder holds one folder per
cache key (base32 of a sha256 since Triton 3.0, hex before). A compiled kernel's folder holds
`<kernel>.json` (metadata: name, target, triton_version, hash, num_warps, shared, ...), its IR
stages `<kernel>.source/.ttir/.ttgir/.llir/.ptx/.cubin/.amdgcn/.hsaco` and `__grp__<kernel>.json`
(the group file that lists them). Launchers and driver utilities (`cuda_utils*.so`,
`__triton_launcher*.so`) get folders of their own without metadata. A compile that was interrupted
leaves `tmp.pid_*` folders or stages without metadata.

Scanning and planning are pure (no processes); deleting is a separate, small step. Folders whose
names are not Triton cache keys are never touched, whatever the options say.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import struct
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import UsageError
from bootstrap.core.runner import Runner

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

# Triton >= 3.0 names entries by base32(sha256) (52 chars); 2.x used hex digests.
_KEY_NAME = re.compile(r"^(?:[A-Z2-7]{52}|[0-9a-f]{32}|[0-9a-f]{64})$")
_TEXT_STAGES = ("source", "ttir", "ttgir", "llir", "ptx", "amdgcn", "json")
_BINARY_SUFFIXES = (".cubin", ".hsaco", ".so", ".o")
TRASH_PREFIX = ".tritondev-trash-"

# Entry kinds.
KERNEL = "kernel"  # compiled kernel with metadata
MODULE = "module"  # launcher or driver utility (.so), no metadata
AUTOTUNE = "autotune"  # autotuning results (TRITON_CACHE_AUTOTUNING)
INCOMPLETE = "incomplete"  # stages without metadata, or only leftovers of an interrupted write
FOREIGN = "foreign"  # not a Triton cache key: shown, never removed


# -- locating the cache ----------------------------------------------------------------------


def cache_dir(environ: Mapping[str, str], home: Path) -> tuple[Path, str]:
    """Where Triton keeps its cache, and why: TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~."""
    explicit = environ.get("TRITON_CACHE_DIR", "").strip()
    if explicit:
        return Path(os.path.expanduser(explicit)), "$TRITON_CACHE_DIR"
    triton_home = environ.get("TRITON_HOME", "").strip()
    if triton_home:
        return Path(os.path.expanduser(triton_home)) / ".triton" / "cache", "$TRITON_HOME/.triton/cache"
    return home / ".triton" / "cache", "~/.triton/cache"


def resolve_cache_dir(
    option: Path | None, environ: Mapping[str, str], env_file: Mapping[str, str], home: Path
) -> tuple[Path, str]:
    """--dir, else the environment, else the workspace env file (what `tritondev run` would set), else ~."""
    if option is not None:
        return option, "--dir"
    names = ("TRITON_CACHE_DIR", "TRITON_HOME")
    if not any(environ.get(n, "").strip() for n in names) and any(env_file.get(n, "").strip() for n in names):
        path, source = cache_dir(env_file, home)
        return path, f"{source} (workspace env file)"
    return cache_dir(environ, home)


# -- parsing user input ----------------------------------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_duration(text: str) -> float:
    """Seconds in `30m`, `12h`, `7d`, `2w` (also `90s`, `1.5d`). A bare number is refused: minutes or days?"""
    match = _DURATION.match(text)
    if not match:
        raise UsageError(
            f"cannot read the age '{text}'",
            fix="give a number and a unit: 30m, 12h, 7d or 2w (s, m, h, d, w)",
        )
    return float(match.group(1)) * _DURATION_UNITS[match.group(2).lower()]


def parse_size(text: str) -> int:
    """Bytes in `500M`, `5G`, `1.5G`, `200K`, `5GiB` or a plain number of bytes (units are powers of 1024)."""
    match = _SIZE.match(text)
    if not match:
        raise UsageError(
            f"cannot read the size '{text}'",
            fix="give bytes or a number with a unit: 500M, 5G, 200K (powers of 1024)",
        )
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "K", "M", "G"):
        if value < 1024 or unit == "G":
            return f"{int(value)}{unit}" if unit == "B" else f"{value:.1f}{unit}"
        value /= 1024
    return f"{value:.1f}T"  # pragma: no cover - the loop returns


def human_age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, span in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= span:
            return f"{int(seconds // span)}{unit}"
    return f"{int(seconds)}s"


# -- reading entries ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Artifact:
    name: str
    size: int
    binary: bool

    @property
    def stage(self) -> str:
        """What the file is: the extension of IR stages (ptx, cubin, ...), 'group' or 'metadata'."""
        if self.name.startswith("__grp__"):
            return "group"
        suffix = self.name.rsplit(".", 1)[-1] if "." in self.name else ""
        if suffix == "json":
            return "metadata"
        if self.name.endswith(".so") or ".so." in self.name:
            return "so"
        return suffix


@dataclass
class Entry:
    """One folder of the cache."""

    key: str
    path: Path
    kind: str
    name: str | None = None  # kernel or module name
    size: int = 0
    mtime: float = 0.0  # newest file: Triton never rewrites an entry, so this is when it was made
    artifacts: list[Artifact] = field(default_factory=list)
    metadata: dict[str, object] = field(default_factory=dict)
    backend: str | None = None  # "cuda", "hip"
    arch: str | None = None  # "90", "gfx942"
    warp_size: int | None = None
    triton_version: str | None = None
    triton_hash: str | None = None
    n_regs: int | None = None
    n_spills: int | None = None
    stack_bytes: int | None = None  # per-thread local frame (CUDA): spills land here
    stale: list[str] = field(default_factory=list)  # reasons; empty when fresh or unknown

    @property
    def target(self) -> str | None:
        if self.backend is None or self.arch is None:
            return None
        return f"{self.backend}:{self.arch}"

    def age(self, now: float) -> float:
        return max(0.0, now - self.mtime)

    @property
    def removable(self) -> bool:
        return self.kind != FOREIGN

    def to_json(self, now: float) -> dict[str, object]:
        return {
            "key": self.key,
            "path": str(self.path),
            "kind": self.kind,
            "name": self.name,
            "target": self.target,
            "triton_version": self.triton_version,
            "hash": self.triton_hash,
            "size": self.size,
            "mtime": self.mtime,
            "age_seconds": round(self.age(now), 1),
            "n_regs": self.n_regs,
            "n_spills": self.n_spills,
            "stack_bytes": self.stack_bytes,
            "shared": self.metadata.get("shared"),
            "num_warps": self.metadata.get("num_warps"),
            "num_stages": self.metadata.get("num_stages"),
            "stale": bool(self.stale),
            "stale_reasons": list(self.stale),
            "artifacts": [
                {"name": a.name, "size": a.size, "stage": a.stage, "binary": a.binary} for a in self.artifacts
            ],
        }


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _read_metadata(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _files(folder: Path) -> Iterable[tuple[Path, os.stat_result]]:
    """Every regular file under `folder` (leftover tmp.pid_* folders included), without following links."""
    for root, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in names:
            path = Path(root) / name
            try:
                st = path.lstat()
            except OSError:
                continue  # removed while we looked (a concurrent Triton write)
            yield path, st


def read_entry(folder: Path) -> Entry:
    """Everything about one cache folder that its files tell, without running anything."""
    key = folder.name
    entry = Entry(key=key, path=folder, kind=FOREIGN if not _KEY_NAME.match(key) else INCOMPLETE)
    newest = 0.0
    total = 0
    for path, st in _files(folder):
        total += st.st_size
        newest = max(newest, st.st_mtime)
        if path.parent == folder:
            binary = path.name.endswith(_BINARY_SUFFIXES) or ".so" in path.suffixes
            entry.artifacts.append(Artifact(path.name, st.st_size, binary))
    if newest == 0.0:
        try:
            newest = folder.lstat().st_mtime
        except OSError:
            pass
    entry.size, entry.mtime = total, newest
    entry.artifacts.sort(key=_artifact_order)
    if entry.kind == FOREIGN:
        return entry

    metadata_files = [a.name for a in entry.artifacts if a.name.endswith(".json") and not a.name.startswith("__grp__")]
    for meta_name in metadata_files:
        if meta_name.endswith(".autotune.json"):
            entry.kind, entry.name = AUTOTUNE, meta_name[: -len(".autotune.json")]
            continue
        data = _read_metadata(folder / meta_name)
        if data is None or "target" not in data:
            continue
        entry.kind = KERNEL
        entry.metadata = data
        entry.name = str(data.get("name") or meta_name[: -len(".json")])
        _fill_from_metadata(entry, data)
        break
    if entry.kind == INCOMPLETE:
        shared_objects = [a.name for a in entry.artifacts if a.stage == "so"]
        if shared_objects:
            entry.kind, entry.name = MODULE, shared_objects[0].split(".", 1)[0]
        else:
            stems = [a.name.rsplit(".", 1)[0] for a in entry.artifacts if not a.name.startswith("__grp__")]
            entry.name = stems[0] if stems else None
    if entry.kind == KERNEL and entry.name:
        _fill_resources(entry)
    return entry


def _artifact_order(artifact: Artifact) -> tuple[int, str]:
    order = ("source", "ttir", "ttgir", "llir", "ptx", "cubin", "amdgcn", "hsaco", "metadata", "group")
    stage = artifact.stage
    return (order.index(stage) if stage in order else len(order), artifact.name)


def _fill_from_metadata(entry: Entry, data: Mapping[str, object]) -> None:
    target = data.get("target")
    if isinstance(target, Mapping):
        backend, arch = target.get("backend"), target.get("arch")
        entry.backend = str(backend) if backend is not None else None
        entry.arch = str(arch) if arch is not None else None
        entry.warp_size = _int_or_none(target.get("warp_size"))
    elif isinstance(target, list) and len(target) >= 2:  # older Triton serialised GPUTarget as a list
        entry.backend, entry.arch = str(target[0]), str(target[1])
    version = data.get("triton_version")
    entry.triton_version = str(version) if version else None
    digest = data.get("hash")
    entry.triton_hash = str(digest) if digest else None
    entry.n_regs = _int_or_none(data.get("n_regs"))
    entry.n_spills = _int_or_none(data.get("n_spills"))


def _fill_resources(entry: Entry) -> None:
    """Registers and spills when the metadata lacks them (Triton 3.x writes neither).

    CUDA: the cubin's .nv.info attributes (what cuobjdump --dump-resource-usage shows). AMD: the
    code object metadata at the end of the .amdgcn text.
    """
    name = entry.name or ""
    if entry.n_regs is None and (entry.path / f"{name}.cubin").is_file():
        try:
            usage = cubin_resource_usage((entry.path / f"{name}.cubin").read_bytes(), name)
        except (OSError, ValueError):
            usage = {}
        entry.n_regs = usage.get("registers")
        entry.stack_bytes = usage.get("stack")
    if entry.n_regs is None and (entry.path / f"{name}.amdgcn").is_file():
        try:
            text = (entry.path / f"{name}.amdgcn").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        usage = amdgcn_resource_usage(text)
        entry.n_regs = usage.get("vgprs")
        if entry.n_spills is None and "vgpr_spills" in usage:
            entry.n_spills = usage["vgpr_spills"] + usage.get("sgpr_spills", 0)


# EIATTR codes in a cubin's .nv.info sections (as cuobjdump reads them).
_EIATTR_FRAME_SIZE = 0x11
_EIATTR_REGCOUNT = 0x2F
_EIFMT_SVAL = 0x04


def cubin_resource_usage(data: bytes, kernel: str) -> dict[str, int]:
    """Registers and per-thread stack frame of `kernel` in a CUDA cubin (an ELF64 file).

    ptxas records them as EIATTR_REGCOUNT / EIATTR_FRAME_SIZE attributes (symbol index, value) in
    the .nv.info section; the symbol index names the kernel in .symtab.
    """
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not an ELF64 file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def section_name(offset: int) -> str:
        base = sections[shstrndx][4] + offset
        return data[base : data.index(b"\0", base)].decode(errors="replace")

    symbols: dict[int, str] = {}
    for sec in sections:
        if sec[1] == 2:  # SHT_SYMTAB
            strtab = sections[sec[6]][4]
            for index in range(sec[5] // 24):
                st_name = struct.unpack_from("<I", data, sec[4] + index * 24)[0]
                symbols[index] = data[strtab + st_name : data.index(b"\0", strtab + st_name)].decode(errors="replace")
    usage: dict[str, int] = {}
    for sec in sections:
        if not section_name(sec[0]).startswith(".nv.info"):
            continue
        pos, end = sec[4], sec[4] + sec[5]
        while pos + 4 <= end:
            fmt, attr = data[pos], data[pos + 1]
            if fmt != _EIFMT_SVAL:
                pos += 4
                continue
            size = struct.unpack_from("<H", data, pos + 2)[0]
            if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and size == 8:
                symbol, value = struct.unpack_from("<II", data, pos + 4)
                if symbols.get(symbol) == kernel:
                    usage["registers" if attr == _EIATTR_REGCOUNT else "stack"] = value
            pos += 4 + size
    return usage


_AMD_FIELDS = {
    "vgprs": re.compile(r"^\s*\.vgpr_count:\s+(\d+)", re.M),
    "sgprs": re.compile(r"^\s*\.sgpr_count:\s+(\d+)", re.M),
    "vgpr_spills": re.compile(r"^\s*\.vgpr_spill_count:\s+(\d+)", re.M),
    "sgpr_spills": re.compile(r"^\s*\.sgpr_spill_count:\s+(\d+)", re.M),
}


def amdgcn_resource_usage(text: str) -> dict[str, int]:
    """VGPRs, SGPRs and their spills from the amdhsa metadata block of an .amdgcn file."""
    usage = {}
    for key, pattern in _AMD_FIELDS.items():
        match = pattern.search(text)
        if match:
            usage[key] = int(match.group(1))
    return usage


def scan(root: Path) -> list[Entry]:
    """Every entry of the cache at `root`, newest first; [] when the folder does not exist."""
    try:
        children = [p for p in root.iterdir() if p.is_dir() and not p.is_symlink()]
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise UsageError(
            f"kernel cache path {root} is not a folder", fix="point --dir or TRITON_CACHE_DIR at a folder"
        ) from None
    except PermissionError:
        raise UsageError(
            f"cannot read the kernel cache {root}: permission denied", fix="check its permissions"
        ) from None
    entries = [read_entry(p) for p in children if not p.name.startswith(TRASH_PREFIX)]
    entries.sort(key=lambda e: (-e.mtime, e.key))
    return entries


# -- staleness ---------------------------------------------------------------------------------


def mark_stale(entries: Sequence[Entry], installed_version: str | None, local_targets: Sequence[str]) -> None:
    """Flag kernels built by another Triton than the installed one, or for a GPU that is not here.

    installed_version: `triton.__version__` of the target environment (None: unknown, no check).
    local_targets: targets of the GPUs present ("cuda:90", "hip:gfx942"); empty: no GPU, no check.
    """
    for entry in entries:
        entry.stale = []
        if entry.kind != KERNEL:
            continue
        if installed_version and entry.triton_version and entry.triton_version != installed_version:
            entry.stale.append(f"built by Triton {entry.triton_version}, installed is {installed_version}")
        if local_targets and entry.target and entry.target not in local_targets:
            entry.stale.append(f"built for {entry.target}, this machine has {', '.join(local_targets)}")


# -- finding one entry ---------------------------------------------------------------------------


def find_entry(entries: Sequence[Entry], wanted: str) -> Entry:
    """The entry named by its key, a unique key prefix, or a unique kernel name."""
    exact = [e for e in entries if e.key == wanted]
    if exact:
        return exact[0]
    by_prefix = [e for e in entries if len(wanted) >= 4 and e.key.startswith(wanted.upper())]
    by_name = [e for e in entries if e.name == wanted]
    for matches in (by_prefix, by_name):
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            keys = ", ".join(e.key[:12] for e in matches[:6])
            raise UsageError(
                f"'{wanted}' matches {len(matches)} cache entries ({keys}...)",
                fix="give more of the key (see `tritondev cache ls`)",
            )
    raise UsageError(f"no cache entry '{wanted}'", fix="list the entries with `tritondev cache ls`")


def find_artifact(entry: Entry, wanted: str) -> Artifact:
    """An artifact by file name or by stage (`ptx`, `ttgir`, `metadata`, ...)."""
    for artifact in entry.artifacts:
        if artifact.name == wanted:
            return artifact
    matches = [a for a in entry.artifacts if a.stage == wanted.lstrip(".")]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(a.name for a in entry.artifacts) or "none"
    raise UsageError(f"entry {entry.key[:12]} has no artifact '{wanted}' (it has: {names})", fix="name one of those")


# -- planning removals -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Removal:
    entry: Entry
    reason: str


def plan_clear(entries: Sequence[Entry], kernel: str | None = None) -> list[Removal]:
    """Every removable entry, or those whose kernel/module name matches `kernel` (shell wildcards allowed)."""
    chosen = []
    for entry in entries:
        if not entry.removable:
            continue
        if kernel is None:
            chosen.append(Removal(entry, "clear"))
        elif entry.name is not None and fnmatch.fnmatchcase(entry.name, kernel):
            chosen.append(Removal(entry, f"kernel matches '{kernel}'"))
    return chosen


def plan_prune(
    entries: Sequence[Entry],
    now: float,
    older_than: float | None = None,
    max_size: int | None = None,
    stale: bool = False,
) -> list[Removal]:
    """What to remove: entries older than `older_than` seconds, stale ones (with `stale`), then the
    least recently written until the removable total fits in `max_size` bytes. Foreign folders are
    neither removed nor counted."""
    removals: list[Removal] = []
    gone: set[str] = set()
    candidates = [e for e in entries if e.removable]
    for entry in candidates:
        if older_than is not None and entry.age(now) > older_than:
            removals.append(Removal(entry, f"older than {human_age(older_than)} ({human_age(entry.age(now))})"))
            gone.add(entry.key)
        elif stale and entry.stale:
            removals.append(Removal(entry, "stale: " + "; ".join(entry.stale)))
            gone.add(entry.key)
    if max_size is not None:
        remaining = sorted((e for e in candidates if e.key not in gone), key=lambda e: (e.mtime, e.key))
        total = sum(e.size for e in remaining)
        for entry in remaining:
            if total <= max_size:
                break
            removals.append(Removal(entry, f"cache over {human_size(max_size)}: oldest first"))
            total -= entry.size
    return removals


def remove_entries(root: Path, removals: Sequence[Removal]) -> list[Removal]:
    """Delete the planned entries; returns those removed.

    Each folder is first renamed out of Triton's sight (atomic), so a process reading the cache sees
    the entry whole or not at all, and an interrupted delete leaves only a trash folder that the
    next run finishes.
    """
    _empty_trash(root)
    done = []
    for removal in removals:
        folder = removal.entry.path
        if folder.parent != root or not _KEY_NAME.match(folder.name) or folder.is_symlink():
            continue  # defence in depth: the planner never picks these
        trash = root / f"{TRASH_PREFIX}{folder.name}-{os.getpid()}"
        try:
            folder.rename(trash)
        except FileNotFoundError:
            done.append(removal)  # someone else removed it meanwhile: gone all the same
            continue
        except OSError:
            continue  # no permission (a shared cache of another user): left whole, reported by the caller
        shutil.rmtree(trash, ignore_errors=True)
        done.append(removal)
    return done


def _empty_trash(root: Path) -> None:
    try:
        leftovers = [p for p in root.iterdir() if p.name.startswith(TRASH_PREFIX) and p.is_dir()]
    except OSError:
        return
    for path in leftovers:
        shutil.rmtree(path, ignore_errors=True)


def now() -> float:
    return time.time()


# -- facts read through processes (probes: they only read) ------------------------------------------

# Reads triton.__version__ from the package source without importing triton (slow, and it may be
# broken): the same string Triton writes into each kernel's metadata.
_VERSION_PROBE = r"""
import importlib.util, re
spec = importlib.util.find_spec("triton")
if spec is None or not spec.origin:
    print("")
else:
    text = open(spec.origin, encoding="utf-8", errors="replace").read()
    m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.M)
    print(m.group(1) if m else "")
"""


def installed_triton_version(python: Path, runner: Runner) -> str | None:
    """`triton.__version__` in the environment of `python`; None when triton is not installed there."""
    result = runner.run([python, "-I", "-c", _VERSION_PROBE], step="probe-triton-version", probe=True, check=False)
    version = result.stdout.strip().splitlines()[-1].strip() if result.ok and result.stdout.strip() else ""
    return version or None


def local_gpu_targets(runner: Runner) -> list[str]:
    """Targets of the GPUs on this machine ("cuda:90", "hip:gfx942"); [] without a GPU or its tools."""
    targets: list[str] = []
    if runner.which("nvidia-smi"):
        result = runner.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            step="probe-gpu",
            probe=True,
            check=False,
            timeout=30,
        )
        if result.ok:
            for line in result.stdout.splitlines():
                match = re.match(r"^\s*(\d+)\.(\d+)\s*$", line)
                if match:
                    targets.append(f"cuda:{match.group(1)}{match.group(2)}")
    if runner.which("rocminfo"):
        result = runner.run(["rocminfo"], step="probe-gpu", probe=True, check=False, timeout=30)
        if result.ok:
            targets += [f"hip:{arch}" for arch in re.findall(r"^\s*Name:\s+(gfx[0-9a-f]+)\s*$", result.stdout, re.M)]
    return list(dict.fromkeys(targets))


# -- the whole picture, for the commands ------------------------------------------------------------


@dataclass
class CacheReport:
    root: Path
    source: str
    entries: list[Entry]
    installed_version: str | None
    local_targets: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def total_size(self) -> int:
        return sum(e.size for e in self.entries)

    def to_json(self, now: float) -> dict[str, object]:
        return {
            "dir": str(self.root),
            "dir_source": self.source,
            "exists": self.root.is_dir(),
            "installed_triton": self.installed_version,
            "local_targets": self.local_targets,
            "count": len(self.entries),
            "total_size": self.total_size,
            "stale_count": sum(1 for e in self.entries if e.stale),
            "notes": self.notes,
            "entries": [e.to_json(now) for e in self.entries],
        }


def inspect_cache(ctx: AppContext, dir_option: Path | None, *, check_stale: bool = True) -> CacheReport:
    """Scan the cache and flag stale entries against the target environment's Triton and local GPUs."""
    from bootstrap.env.envfile import read_env_file

    root, source = resolve_cache_dir(dir_option, os.environ, read_env_file(ctx.workspace.env_file), Path.home())
    entries = scan(root)
    report = CacheReport(root, source, entries, None, [])
    if not check_stale or not any(e.kind == KERNEL for e in entries):
        return report
    target = ctx.target_python_if_present()  # a target the user named but that is broken: exit 2
    if target is None:
        report.notes.append(
            "no target environment (no --python, virtualenv or workspace venv): Triton versions not compared"
        )
    else:
        report.installed_version = installed_triton_version(target.executable, ctx.runner)
        if report.installed_version is None:
            report.notes.append(f"triton is not installed in {target.executable}: Triton versions not compared")
    report.local_targets = local_gpu_targets(ctx.runner)
    if not report.local_targets:
        report.notes.append("no GPU found: targets not compared")
    mark_stale(entries, report.installed_version, report.local_targets)
    return report
