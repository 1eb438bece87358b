"""What a set of pins is: the Triton, LLVM and PyTorch commits a setup builds, and where each came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bootstrap.git.checkouts import repository_url
from bootstrap.git.layout import DEFAULT_LLVM_REPOSITORY, LLVM_BUILD_INFO, TritonLayout

if TYPE_CHECKING:
    from bootstrap.core.settings.settings_table import Settings


@dataclass(frozen=True)
class Pins:
    torch_ref: str | None
    torch_ref_source: str
    triton_commit: str
    triton_commit_source: str
    triton_version: str | None
    llvm_commit: str
    llvm_url: str
    layout: TritonLayout
    triton_version_source: str = ""
    llvm_commit_source: str = ""
    llvm_url_source: str = ""
    torch_commit: str | None = None  # the PyTorch commit the pin was read at, when known
    torch_version: str | None = None  # of the installed torch, when that chose the ref
    pytorch_url: str | None = None
    triton_url: str = ""
    backend: str = "nvidia"
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "backend": self.backend,
            "torch_ref": self.torch_ref,
            "torch_ref_source": self.torch_ref_source,
            "torch_commit": self.torch_commit,
            "torch_version": self.torch_version,
            "pytorch_url": self.pytorch_url,
            "triton_commit": self.triton_commit,
            "triton_commit_source": self.triton_commit_source,
            "triton_version": self.triton_version,
            "triton_version_source": self.triton_version_source,
            "triton_url": self.triton_url,
            "llvm_commit": self.llvm_commit,
            "llvm_commit_source": self.llvm_commit_source,
            "llvm_repository": self.layout.llvm_repository,
            "llvm_url": self.llvm_url,
            "llvm_url_source": self.llvm_url_source,
            "llvm_forks": list(self.layout.llvm_forks),
            "llvm_build_info": self.layout.llvm_build_info.to_json() if self.layout.llvm_build_info else None,
            "amd_llvm": self.layout.amd_llvm.to_json() if self.layout.amd_llvm else None,
            "llvm_pin_file": self.layout.llvm_pin_file,
            "setup_py_dir": self.layout.setup_py_dir,
            "binding": self.layout.binding,
            "build_requires": list(self.layout.build_requires),
            "has_build_llvm_script": self.layout.has_build_llvm_script,
            "setup_py_version": self.layout.version,
            "notes": list(self.notes),
        }


def _describe_source(source: str) -> str:
    kind, _, where = source.partition(":")
    return {"cli": f"option {where}", "env": f"environment variable {where}", "file": f"settings file {where}"}.get(
        kind, source
    )


def llvm_url_for(settings: Settings, layout: TritonLayout) -> tuple[str, str]:
    """The LLVM repository to clone, and why that one."""
    default_llvm = f"https://github.com/{layout.llvm_repository}.git"
    llvm_url = repository_url(settings, "llvm-project", default_llvm)
    if settings.llvm_url and llvm_url == settings.llvm_url:
        return llvm_url, _describe_source(settings.source_of("llvm_url"))
    if settings.mirror is not None and llvm_url != default_llvm:
        return llvm_url, "--mirror"
    info = layout.llvm_build_info
    if info is not None and info.repository == layout.llvm_repository and info.commit == layout.llvm_commit:
        return llvm_url, f"{LLVM_BUILD_INFO} repository (it builds this commit)"
    if layout.llvm_repository != DEFAULT_LLVM_REPOSITORY:
        return llvm_url, "LLVM_PROJECT_URL of scripts/build-llvm-project.sh"
    return llvm_url, f"default: {DEFAULT_LLVM_REPOSITORY}"
