"""What `tritondev compile` produced: each target's result, the ptxas retries, and the report of them all."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.kernels.targets import Target
from bootstrap.kernels.usage import CudaResources, HipResources


@dataclass
class TargetResult:
    target: Target
    ok: bool
    folder: Path | None = None
    files: dict[str, str] = field(default_factory=dict)
    resources: CudaResources | HipResources | None = None  # None: it did not compile
    error: str | None = None
    tail: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sass_by: str | None = None  # the nvdisasm that wrote the SASS
    notes: list[str] = field(default_factory=list)  # e.g. why another nvdisasm than Triton's wrote it
    output: list[str] = field(default_factory=list)  # what the compiler printed for this target

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target.label,
            "ok": self.ok,
            "folder": str(self.folder) if self.folder else None,
            "files": self.files,
            "resources": self.resources.to_json() if self.resources is not None else {},
            "error": self.error,
            "tail": self.tail,
            "warnings": self.warnings,
            "sass_by": self.sass_by,
            "notes": self.notes,
            "output": self.output,
        }


@dataclass(frozen=True)
class Autotune:
    """An @triton.autotune kernel's configs (`--config N` in the words of each) and the one compiled."""

    configs: tuple[str, ...]
    config: int | None  # None: the kernel's own values, no config chosen

    @property
    def chosen(self) -> str | None:
        return self.configs[self.config] if self.config is not None and 0 <= self.config < len(self.configs) else None

    def to_json(self) -> dict[str, object]:
        return {"configs": list(self.configs), "config": self.config}


@dataclass
class CompileReport:
    kernel: str
    source: Path
    out_dir: Path
    triton_version: str
    triton_file: str
    python: str
    nvdisasm: str | None
    results: list[TargetResult]
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # raised while the kernel's file was imported
    autotune: Autotune | None = None  # the configs of an @triton.autotune kernel
    cache_dir: str = ""  # the Triton cache this compile used
    retries: list[Retry] = field(default_factory=list)  # targets whose ptxas did not know the arch

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failed(self) -> list[TargetResult]:
        return [r for r in self.results if not r.ok]

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "kernel": self.kernel,
            "source": str(self.source),
            "out": str(self.out_dir),
            "python": self.python,
            "triton_version": self.triton_version,
            "triton_file": self.triton_file,
            "nvdisasm": self.nvdisasm,
            "seconds": round(self.seconds, 3),
            "warnings": self.warnings,
            "autotune": self.autotune.to_json() if self.autotune is not None else {},
            "triton_cache_dir": self.cache_dir,
            "targets": [r.to_json() for r in self.results],
            "ptxas_retries": [r.to_json() for r in self.retries],
        }


@dataclass
class Retry:
    """What happened to one target whose ptxas did not know the arch."""

    target: str
    gpu_name: str
    failed_with: str  # Triton's own choice, "path (CUDA x.y)"
    variables: tuple[str, ...]  # the variables that name that ptxas in this Triton
    used: str | None = None  # the toolkit ptxas that compiled it
    release: str | None = None
    failed_ptx: str | None = None
    tried: list[str] = field(default_factory=list)

    @property
    def exports(self) -> list[str]:
        """How to make Triton use `used` by itself: one assignment per variable (quoted for `env` when the
        name is no shell variable, as Triton's TRITON_PTXAS-BLACKWELL_PATH of some releases is)."""
        if self.used is None:
            return []
        return [
            f"export {v}={self.used}" if re.fullmatch(r"[A-Za-z_]\w*", v) else f"env '{v}={self.used}' python3 ..."
            for v in self.variables
        ]

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target,
            "gpu_name": self.gpu_name,
            "failed_with": self.failed_with,
            "variables": list(self.variables),
            "used": self.used,
            "release": self.release,
            "failed_ptx": self.failed_ptx,
            "tried": self.tried,
            "exports": self.exports,
        }
