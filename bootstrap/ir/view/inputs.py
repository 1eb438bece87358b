"""What `tritondev ir view` reads: a dump of `run --dump-ir`, or the folder `compile --out` wrote.

A dump (a folder with index.json, or a file of raw MLIR_ENABLE_DUMP=1 output) holds the IR before each
pass; bootstrap/ir/dumps.py reads it. A `compile --out` folder holds one folder per target
(`cuda-90/`, `hip-gfx942/`, each marked by `.tritondev-compile`) with the kernel's stages (`.ttir`,
`.ttgir`, `.llir`, `.ptx` or `.amdgcn`, `.sass`) and Triton's `metadata.json`; its resource summary
is read from the cubin and the metadata the way `compile` reads them. Reading never writes and never
runs anything; what is none of these is a DumpError (exit 2) that says what the path is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bootstrap.core.fsutil import NotRegularFile, read_regular
from bootstrap.core.suggest import closest
from bootstrap.ir.dumps import INDEX, MAX_DUMP_BYTES, DumpError, Stage, load_dump
from bootstrap.kernels import usage as kernel_usage
from bootstrap.kernels.cubin import MAX_KERNEL_FILE_BYTES, cubin_resource_usage

COMPILE_MARKER = ".tritondev-compile"  # what `tritondev compile` leaves in each target folder it wrote
# The stages of a compile folder in pipeline order: (file extension, stage, kind of text).
COMPILE_STAGES = (
    ("ttir", "ttir", "mlir"),
    ("ttgir", "ttgir", "mlir"),
    ("llir", "llir", "llvm"),
    ("ptx", "ptx", "nvptx"),
    ("amdgcn", "amdgcn", "amdgcn"),
    ("sass", "sass", "other"),
)
FIX = (
    "give a folder `tritondev run --dump-ir` wrote (it holds index.json), a file of MLIR_ENABLE_DUMP=1 output, "
    "or a folder `tritondev compile --out` wrote"
)


@dataclass(frozen=True)
class Track:
    """One kernel's IR in order: the dumps of its passes, or the stages of one compile target."""

    kernel: str
    target: str | None
    stages: list[Stage]
    resources: dict[str, int | None] | None = None
    resources_note: str = ""


@dataclass(frozen=True)
class ViewInput:
    path: Path
    what: str  # dump | compile
    tracks: list[Track] = field(default_factory=list)

    def kernels(self) -> list[str]:
        return list(dict.fromkeys(t.kernel for t in self.tracks))


def load_input(path: Path) -> ViewInput:
    """The kernels' IR at `path`: a dump folder or file, a compile target folder, or a compile --out folder."""
    if path.is_dir() and not (path / INDEX).exists():
        folders = compile_folders(path)
        if folders:
            return ViewInput(path, "compile", [_compile_track(folder) for folder in folders])
        raise DumpError(
            f"{path} is neither an IR dump nor a compile folder: it has no {INDEX} and no target "
            f"folder with {COMPILE_MARKER}",
            fix=FIX,
        )
    if not path.exists() and not path.is_symlink():
        raise DumpError(f"no dump at {path}: it does not exist", fix=FIX)
    dump = load_dump(path)
    tracks = [Track(kernel, _target_of(stages), stages) for kernel, stages in by_kernel(dump.stages)]
    if not any(s.is_pass_input for t in tracks for s in t.stages):
        raise DumpError(
            f"the dump {path} holds no MLIR pass: its command compiled no Triton kernel",
            fix="make a dump of a run that compiles the kernel: `tritondev run --dump-ir -- python k.py`",
        )
    return ViewInput(path, "dump", tracks)


def compile_folders(path: Path) -> list[Path]:
    """`path` itself when it is a target folder `compile` wrote, else the target folders in it, by name."""
    if (path / COMPILE_MARKER).is_file():
        return [path]
    try:
        children = sorted(path.iterdir())
    except OSError:
        return []
    return [child for child in children if child.is_dir() and (child / COMPILE_MARKER).is_file()]


def by_kernel(stages: tuple[Stage, ...] | list[Stage]) -> list[tuple[str, list[Stage]]]:
    """The dump's stages per kernel, in order. A kernel is a function with a dump of the whole module (or its
    assembly); a pass that ran on one function inside the module (the inliner's canonicalize on
    `triton.language.standard.zeros`) belongs to the compile it ran in: the kernel of the dump before."""
    kernels = {s.kernel for s in stages if s.kernel and (s.op in (None, "builtin.module") or s.is_assembly)}
    groups: dict[str, list[Stage]] = {}
    current: str | None = None
    pending: list[Stage] = []
    for stage in stages:
        name = stage.kernel if stage.kernel in kernels else current
        if name is None:
            pending.append(stage)  # nested passes before the first module dump: given to the first kernel
            continue
        if pending:
            groups.setdefault(name, []).extend(pending)
            pending = []
        groups.setdefault(name, []).append(stage)
        current = name
    if pending:
        groups.setdefault(current or (pending[0].kernel or "kernel"), []).extend(pending)
    return list(groups.items())


def pick_kernels(a: ViewInput, b: ViewInput | None, wanted: str | None) -> tuple[str, str | None]:
    """The kernel shown (in each input): --kernel, else the one they share, else each one's only kernel."""
    if wanted is not None:
        for side in (a, b):
            if side is not None and wanted not in side.kernels():
                known = side.kernels()
                close = closest(wanted, known)
                hint = f" (did you mean '{close}'?)" if close else ""
                raise DumpError(
                    f"kernel '{wanted}' is not in {side.path}{hint}; it holds: {', '.join(known)}",
                    fix=f"use --kernel {close or known[0]}",
                )
        return wanted, wanted if b is not None else None
    kernels_a = a.kernels()
    if b is None:
        return kernels_a[0], None
    kernels_b = b.kernels()
    shared = [k for k in kernels_a if k in kernels_b]
    if len(shared) == 1 or (shared and len(kernels_a) == 1):
        return shared[0], shared[0]
    if len(kernels_a) == 1 and len(kernels_b) == 1:
        return kernels_a[0], kernels_b[0]
    raise DumpError(
        f"the dumps hold several kernels (a: {', '.join(kernels_a)}; b: {', '.join(kernels_b)})",
        fix=f"name the one to show with --kernel, e.g. --kernel {(shared or kernels_a)[0]}",
    )


def _target_of(stages: list[Stage]) -> str | None:
    return next(
        (s.target for s in stages if s.target and ":" in s.target), next((s.target for s in stages if s.target), None)
    )


def _compile_track(folder: Path) -> Track:
    metadata = _metadata(folder)
    files = _stage_files(folder)
    if not files:
        raise DumpError(f"{folder} holds no IR stage (.ttir, .ttgir, .llir, .ptx, .amdgcn, .sass)", fix=FIX)
    names = {file.stem for file in files.values()}
    kernel = str(metadata.get("name") or sorted(names)[0])
    given = metadata.get("target")
    target: dict[str, Any] = given if isinstance(given, dict) else {}
    label = f"{target.get('backend')}:{target.get('arch')}" if target.get("backend") else folder.name
    stages: list[Stage] = []
    for number, (ext, stage_name, kind) in enumerate(COMPILE_STAGES, start=1):
        if ext in files:
            body = _read_text(files[ext], MAX_DUMP_BYTES)
            stages.append(
                Stage(
                    number=number,
                    kind=kind,
                    when=None,
                    name=stage_name.upper(),
                    arg=stage_name,
                    options=None,
                    op=None,
                    kernel=kernel,
                    target=label,
                    failed=False,
                    header="",
                    body=body.rstrip("\n"),
                    origin=files[ext].name,
                )
            )
    resources, note = _resources(folder, kernel, metadata, target)
    return Track(kernel, label, stages, resources, note)


def _stage_files(folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for ext, _, _ in COMPILE_STAGES:
        candidates = sorted(folder.glob(f"*.{ext}"))
        if candidates:
            found[ext] = candidates[0]
    return found


def _metadata(folder: Path) -> dict[str, Any]:
    path = folder / "metadata.json"
    if not path.exists():
        return {}
    try:
        data = json.loads(_read_text(path, 1 << 20))
    except (ValueError, RecursionError):
        raise DumpError(f"{path} is not valid JSON", fix=f"compile again into {folder.parent}") from None
    return data if isinstance(data, dict) else {}


def _resources(
    folder: Path, kernel: str, metadata: dict[str, Any], target: dict[str, Any]
) -> tuple[dict[str, int | None] | None, str]:
    """The compile's resource summary, read as `tritondev compile` reads it (kernels/usage.py)."""
    given = target.get("warp_size")
    warp_size = given if isinstance(given, int) and not isinstance(given, bool) else 32
    if target.get("backend") == "cuda":
        cubin = next(iter(sorted(folder.glob("*.cubin"))), None)
        if cubin is None:
            unknown = "no cubin: registers and spills unknown"
            return kernel_usage.cuda_summary(metadata, None, warp_size).to_json(), unknown
        try:
            usage = cubin_resource_usage(read_regular(cubin, MAX_KERNEL_FILE_BYTES), kernel)
        except (OSError, ValueError) as exc:
            return kernel_usage.cuda_summary(metadata, None, warp_size).to_json(), f"{cubin.name} not read: {exc}"
        return kernel_usage.cuda_summary(metadata, usage, warp_size).to_json(), f"from {cubin.name} and metadata.json"
    if target.get("backend") == "hip":
        listing = next(iter(sorted(folder.glob("*.amdgcn"))), None)
        text = _read_text(listing, MAX_KERNEL_FILE_BYTES) if listing else ""
        info = kernel_usage.parse_amdgcn_info(text, kernel)
        arch = str(target.get("arch"))
        summary = kernel_usage.hip_summary(metadata, info, warp_size, arch)
        return summary.to_json(), "from the .amdgcn listing and metadata.json"
    return None, "metadata.json names no target"


def _read_text(path: Path, limit: int) -> str:
    try:
        data = read_regular(path, limit + 1)
    except NotRegularFile:
        raise DumpError(f"{path} is not a regular file", fix=FIX) from None
    except OSError as exc:
        raise DumpError(f"cannot read {path}: {exc.strerror}", fix=f"check the permissions of {path.parent}") from None
    if len(data) > limit:
        raise DumpError(f"{path} is larger than {limit >> 20} MiB: not a compile stage", fix=FIX)
    return data.decode("utf-8", "surrogateescape")


MAX_SOURCE_BYTES = 4 << 20  # a kernel's Python file; a larger one is not shown
MAX_SOURCE_FILES = 32


def read_sources(paths: list[str], bases: list[Path]) -> tuple[dict[str, list[str] | None], dict[str, str]]:
    """The lines of each source file the IR points to, where it can be read here; for the others, why not
    (a dump made on another machine names files that are not here). A relative name is looked up in each
    of `bases` in turn (the current folder, the dump's)."""
    texts: dict[str, list[str] | None] = {}
    notes: dict[str, str] = {}
    for number, name in enumerate(paths):
        texts[name] = None
        if number >= MAX_SOURCE_FILES:
            notes[name] = f"not shown: only the first {MAX_SOURCE_FILES} files are"
            continue
        path = Path(name)
        if not path.is_absolute():
            path = next((base / path for base in bases if (base / path).exists()), path)
        try:
            data = read_regular(path, MAX_SOURCE_BYTES + 1)
        except NotRegularFile:
            notes[name] = "not a regular file here"
            continue
        except (OSError, ValueError) as exc:
            notes[name] = f"not readable here: {getattr(exc, 'strerror', None) or exc}"
            continue
        if len(data) > MAX_SOURCE_BYTES:
            notes[name] = f"not shown: larger than {MAX_SOURCE_BYTES >> 20} MiB"
            continue
        texts[name] = data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    return texts, notes
