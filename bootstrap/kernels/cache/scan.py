"""Reading the kernel cache: one Entry per folder, from its files alone (no process, no import).

Layout (triton `runtime/cache.py`, `compiler/compiler.py`): the cache folder holds one folder per
cache key (base32 of a sha256 since Triton 3.0, hex before). A compiled kernel's folder holds
`<kernel>.json` (metadata: name, target, triton_version, hash, num_warps, shared, ...), its IR
stages `<kernel>.source/.ttir/.ttgir/.llir/.ptx/.cubin/.amdgcn/.hsaco` and `__grp__<kernel>.json`
(the group file that lists them). Launchers and driver utilities (`cuda_utils*.so`,
`__triton_launcher*.so`) get folders of their own without metadata. A compile that was interrupted
leaves `tmp.pid_*` folders or stages without metadata.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.kernels.cache.contents import KEY_NAME, TRASH_PREFIX, content_problem, is_evidence
from bootstrap.kernels.cache.resources import kernel_resources

_BINARY_SUFFIXES = (".cubin", ".hsaco", ".so", ".o", ".spv", ".zebin", ".pyd")
_MAX_METADATA_BYTES = 16 << 20  # a kernel's metadata is a few KiB

# Entry kinds.
KERNEL = "kernel"  # compiled kernel with metadata
MODULE = "module"  # launcher or driver utility (.so), no metadata
AUTOTUNE = "autotune"  # autotuning results (TRITON_CACHE_AUTOTUNING)
INCOMPLETE = "incomplete"  # stages without metadata, or only leftovers of an interrupted write
FOREIGN = "foreign"  # not Triton's (name or contents, see contents.py): shown, never removed


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
    foreign_reason: str | None = None  # why a FOREIGN folder is not Triton's

    @property
    def target(self) -> str | None:
        if self.backend is None or self.arch is None:
            return None
        return f"{self.backend}:{self.arch}"

    def launch_fields(self) -> list[tuple[str, str]]:
        """How Triton launches it, as its metadata says: (name, value) for those it gives."""
        return [
            (key, str(self.metadata[key]))
            for key in ("num_warps", "num_stages", "num_ctas", "shared")
            if key in self.metadata
        ]

    def age(self, now: float) -> float:
        return max(0.0, now - self.mtime)

    @property
    def removable(self) -> bool:
        return self.kind != FOREIGN

    @property
    def interrupted(self) -> bool:
        """Only the tmp.pid_* folders of a write that never finished: no file of its own at the top."""
        return self.kind == INCOMPLETE and not self.artifacts

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
            "foreign_reason": self.foreign_reason,
            "artifacts": [
                {"name": a.name, "size": a.size, "stage": a.stage, "binary": a.binary} for a in self.artifacts
            ],
        }


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _read_metadata(path: Path) -> dict[str, object] | None:
    try:
        data = parse_json(read_regular(path, limit=_MAX_METADATA_BYTES).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
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
            if stat.S_ISREG(st.st_mode):
                yield path, st


def read_entry(folder: Path, *, resources: bool = True) -> Entry:
    """Everything about one cache folder that its files tell, without running anything.

    resources: also read a kernel's registers, stack and spills from its compiled files (`cache ls`
    and `show` show them; a check of the whole cache needs only what the metadata says)."""
    key = folder.name
    entry = Entry(key=key, path=folder, kind=FOREIGN if not KEY_NAME.match(key) else INCOMPLETE)
    newest = 0.0
    total = 0
    names: set[str] = set()  # of every file, those in tmp.pid_* folders included
    for path, st in _files(folder):
        names.add(path.name)
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
        entry.foreign_reason = "its name is not a Triton cache key"
        return entry
    entry.foreign_reason = content_problem(folder)
    if entry.foreign_reason is not None:
        entry.kind = FOREIGN
        return entry
    _classify(entry, folder, resources)
    if entry.kind == INCOMPLETE and not any(is_evidence(name) for name in names):
        entry.kind, entry.name = FOREIGN, None
        entry.foreign_reason = "it holds no file that only Triton's cache writes"
    return entry


def _classify(entry: Entry, folder: Path, resources: bool) -> None:
    """Kernel, autotune results, module or incomplete, from the files of a folder that is Triton's."""
    metadata_files = [a.name for a in entry.artifacts if a.name.endswith(".json") and not a.name.startswith("__grp__")]
    for meta_name in metadata_files:
        if meta_name.endswith(".autotune.json"):
            entry.kind, entry.name = AUTOTUNE, meta_name[: -len(".autotune.json")]
            continue
        data = _read_metadata(folder / meta_name)
        if data is None or not _is_kernel_metadata(data):
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
    if resources and entry.kind == KERNEL and entry.name and entry.n_regs is None:
        usage = kernel_resources(folder, entry.name)
        entry.n_regs, entry.stack_bytes = usage.registers, usage.stack_bytes
        if entry.n_spills is None:
            entry.n_spills = usage.spills


def _is_kernel_metadata(data: Mapping[str, object]) -> bool:
    """What compiler.py writes: the kernel's name and the target it was compiled for."""
    target = data.get("target")
    named_target = isinstance(target, Mapping) and "backend" in target
    return isinstance(data.get("name"), str) and (named_target or (isinstance(target, list) and len(target) >= 2))


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


def scan(root: Path, *, resources: bool = True) -> list[Entry]:
    """Every entry of the cache at `root`, newest first; [] when the folder does not exist (resources:
    see read_entry)."""
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
    entries = [read_entry(p, resources=resources) for p in children if not p.name.startswith(TRASH_PREFIX)]
    entries.sort(key=lambda e: (-e.mtime, e.key))
    return entries


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
