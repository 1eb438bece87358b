"""Which Triton to build, and against which LLVM, and where each answer came from.

Triton commit, first match wins:
  1. --triton-commit SHA (or triton_commit from a file/env, unless torch_ref was given at a
     higher-precedence level, e.g. on the command line);
  2. --torch-ref REF: PyTorch's pin at that tag, branch or commit;
  3. the torch installed in the target environment: its commit from torch/version.py (read, never
     imported); a release build maps to its vX.Y.Z tag;
  4. PyTorch main.
PyTorch's pin: .ci/docker/ci_commit_pins/triton.txt, else .github/ci_commit_pins/triton.txt (old
refs); --backend amd reads triton-rocm.txt (falling back to triton.txt: unified since torch 2.5).
The version: .ci/docker/triton_version.txt, else setup.py at the Triton commit.
LLVM: Triton's pin file at that commit (see bootstrap.git.layout), from the repository it names.
"""

from __future__ import annotations

import functools
import re
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ConfigError, MismatchError
from bootstrap.core.redact import redact
from bootstrap.git.checkouts import repository_url
from bootstrap.git.fetch import FileReader, LocalRepoReader, RefNotFound, git_dir_of, open_reader
from bootstrap.git.layout import TritonLayout, detect_layout
from bootstrap.git.refs import RepoUrl, parse_pin_file, validate_commit, validate_ref, validate_repo_url

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

PIN_DIRS = (".ci/docker/ci_commit_pins", ".github/ci_commit_pins")
TRITON_VERSION_FILE = ".ci/docker/triton_version.txt"
PIN_NAMES = {"nvidia": ("triton.txt",), "amd": ("triton-rocm.txt", "triton.txt")}
DEFAULT_TORCH_REF = "main"
_SOURCE_RANK = {"cli": 3, "env": 2, "file": 1, "default": 0}


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
            "llvm_pin_file": self.layout.llvm_pin_file,
            "setup_py_dir": self.layout.setup_py_dir,
            "binding": self.layout.binding,
            "build_requires": list(self.layout.build_requires),
            "has_build_llvm_script": self.layout.has_build_llvm_script,
            "setup_py_version": self.layout.version,
            "notes": list(self.notes),
        }


# -- the installed torch ------------------------------------------------------------------------

_ASSIGN_RE = re.compile(
    r"^(?P<name>__version__|git_version)\s*(?::\s*[^=]+)?=\s*['\"](?P<value>[^'\"]*)['\"]", re.MULTILINE
)


def parse_torch_version_py(text: str) -> tuple[str | None, str | None]:
    """(__version__, git_version) from torch/version.py's text, without importing torch."""
    found = {m.group("name"): m.group("value") for m in _ASSIGN_RE.finditer(text)}
    return found.get("__version__"), found.get("git_version")


def torch_ref_for(version: str, git_version: str | None) -> tuple[str | None, str]:
    """The PyTorch ref an installed torch was built from, and why.

    A release (2.5.1, 2.5.1+cu124) maps to tag v2.5.1, a release candidate (2.6.0rc2) to v2.6.0-rc2;
    nightlies and source builds (2.7.0.dev20250101, 2.7.0a0+git1234567) to their commit.
    """
    from packaging.version import InvalidVersion, Version

    commit = git_version.strip().lower() if git_version else None
    if commit is not None and not re.match(r"^[0-9a-f]{40}$", commit):
        commit = None
    try:
        parsed = Version(version)
    except InvalidVersion:
        return commit, "commit in torch/version.py (version not understood)"
    if (
        parsed.is_devrelease
        or (parsed.pre is not None and parsed.pre[0] != "rc")
        or (parsed.local is not None and parsed.local.startswith("git"))
    ):
        return commit, "commit in torch/version.py (nightly or source build)"
    if parsed.pre is not None:
        return f"v{parsed.base_version}-rc{parsed.pre[1]}", "release-candidate tag of the installed torch"
    return f"v{parsed.base_version}", "release tag of the installed torch"


@dataclass(frozen=True)
class InstalledTorch:
    version: str
    git_version: str | None
    path: Path


def find_installed_torch(ctx: AppContext) -> InstalledTorch | None:
    """torch/version.py in the target environment, read as text; None when there is no torch."""
    target = ctx.target_python_if_present()
    if target is None:
        return None  # no environment yet (setup creates it), hence no torch in it
    for folder in target.site_packages:
        path = folder / "torch" / "version.py"
        if path.is_file():
            version, git_version = parse_torch_version_py(path.read_text(encoding="utf-8", errors="replace"))
            if version:
                return InstalledTorch(version, git_version, path)
    return None


# -- resolution --------------------------------------------------------------------------------


def _rank(source: str) -> int:
    return _SOURCE_RANK.get(source.split(":", 1)[0], 0)


def _describe_source(source: str) -> str:
    kind, _, where = source.partition(":")
    return {"cli": f"option {where}", "env": f"environment variable {where}", "file": f"settings file {where}"}.get(
        kind, source
    )


def read_pytorch_pin(reader: FileReader, backend: str) -> tuple[str, str, list[str]]:
    """(Triton commit, pin file path, notes) from PyTorch's files at one ref."""
    notes: list[str] = []
    for name in PIN_NAMES[backend]:
        for folder in PIN_DIRS:
            path = f"{folder}/{name}"
            text = reader.read(path)
            if text is None:
                continue
            if backend == "amd" and name == "triton.txt":
                notes.append("PyTorch has no triton-rocm.txt at this ref; AMD uses the unified triton.txt pin")
            return parse_pin_file(text, f"{path} at {reader.description}"), path, notes
    wanted = " or ".join(f"{d}/{PIN_NAMES[backend][0]}" for d in PIN_DIRS)
    raise MismatchError(
        f"no Triton pin at {reader.description}: neither {wanted} exists",
        fix="check --torch-ref (PyTorch has pinned Triton since v2.0), or pass --triton-commit SHA",
    )


def read_triton_version(reader: FileReader) -> str | None:
    text = reader.read(TRITON_VERSION_FILE)
    if text is None:
        return None
    value = text.strip()
    return value if re.match(r"^\d+\.\d+(\.\d+)?$", value) else None


def _triton_reader_source(ctx: AppContext, commit: str) -> Path | None:
    """The workspace's Triton checkout, when it already holds `commit` (nothing to download)."""
    checkout = ctx.workspace.src / "triton"
    git_dir = git_dir_of(checkout, ctx.runner)
    if git_dir is None:
        return None
    result = ctx.runner.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
        step="pins",
        probe=True,
        check=False,
    )
    return git_dir if result.returncode == 0 else None


def resolve_pins(ctx: AppContext, *, use_cache: bool | None = None) -> Pins:
    """Resolve torch ref -> Triton commit -> LLVM commit, reading only the files needed.

    use_cache: keep PyTorch's pin objects in <workspace>/src/pytorch.git for next time. Default:
    only when not --dry-run and the workspace exists; otherwise a temporary repository is used
    (borrowing objects from an existing cache without writing to it).
    """
    settings = ctx.settings
    backend = settings.backend
    if backend not in PIN_NAMES:  # settings already restrict the choices; this guards library callers
        raise ConfigError(f"unknown backend {backend!r}", fix=f"use one of {', '.join(PIN_NAMES)}")
    cache_repo = ctx.workspace.src / "pytorch.git"
    if use_cache is None:
        use_cache = not ctx.dry_run and ctx.workspace.root.is_dir()
    triton_location = validate_repo_url(repository_url(settings, "triton", settings.triton_url), "Triton URL")
    notes: list[str] = []

    torch_ref: str | None = None
    torch_source = ""
    torch_version: str | None = None
    triton_commit: str | None = None
    triton_source = ""
    version: str | None = None
    version_source = ""
    torch_commit: str | None = None
    pytorch_url: str | None = None

    commit_src, ref_src = settings.source_of("triton_commit"), settings.source_of("torch_ref")
    if settings.triton_commit and (not settings.torch_ref or _rank(commit_src) >= _rank(ref_src)):
        triton_commit = validate_commit(settings.triton_commit, "--triton-commit")
        triton_source = _describe_source(commit_src)
        torch_source = "not used: the Triton commit was given"
        if settings.torch_ref:
            notes.append(
                f"torch_ref {settings.torch_ref!r} ignored: triton_commit ({_describe_source(commit_src)}) wins"
            )
    else:
        if settings.torch_ref:
            torch_ref = validate_ref(settings.torch_ref, "--torch-ref")
            torch_source = _describe_source(ref_src)
        else:
            installed = find_installed_torch(ctx)
            if installed is not None:
                torch_version = installed.version
                torch_ref, why = torch_ref_for(installed.version, installed.git_version)
                if torch_ref is not None:
                    torch_ref = validate_ref(torch_ref, str(installed.path))
                    torch_source = f"{why} ({installed.version}, {installed.path})"
                else:
                    notes.append(f"installed torch {installed.version} names no commit; using PyTorch main")
            if torch_ref is None:
                torch_ref = DEFAULT_TORCH_REF
                torch_source = "default: PyTorch main (no --torch-ref, no torch in the target environment)"
        pytorch_url = repository_url(settings, "pytorch", settings.pytorch_url)
        location = validate_repo_url(pytorch_url, "PyTorch URL")
        borrow = cache_repo if (not use_cache and (cache_repo / "objects").is_dir()) else None
        with open_reader(
            location, torch_ref, ctx.runner, cache=cache_repo if use_cache else None, borrow_from=borrow
        ) as reader:
            triton_commit, pin_path, pin_notes = read_pytorch_pin(reader, backend)
            notes.extend(pin_notes)
            torch_commit = reader.commit
            triton_source = f"{pin_path} in PyTorch ({reader.description})"
            version = read_triton_version(reader)
            if version is not None:
                version_source = f"{TRITON_VERSION_FILE} in PyTorch ({reader.description})"
            fallback_note = getattr(reader, "note", "")
            if fallback_note:
                notes.append(fallback_note)

    assert triton_commit is not None
    layout, triton_where = _read_layout(ctx, triton_location, triton_commit)
    if version is None and layout.version is not None:
        version, version_source = layout.version, f"setup.py at Triton {triton_commit[:12]} ({triton_where})"
    elif version is not None and layout.version is not None and version != layout.version:
        notes.append(f"PyTorch says Triton {version}, setup.py at the pin says {layout.version}")

    default_llvm = f"https://github.com/{layout.llvm_repository}.git"
    llvm_url = repository_url(settings, "llvm-project", default_llvm)
    llvm_url_source = (
        _describe_source(settings.source_of("llvm_url"))
        if settings.llvm_url and llvm_url == settings.llvm_url
        else "--mirror"
        if settings.mirror is not None and llvm_url != default_llvm
        else "cmake/llvm-build-info.json repository"
        if layout.llvm_repository != "llvm/llvm-project"
        else "default: llvm/llvm-project"
    )
    return Pins(
        torch_ref=torch_ref,
        torch_ref_source=torch_source,
        triton_commit=triton_commit,
        triton_commit_source=triton_source,
        triton_version=version,
        llvm_commit=layout.llvm_commit,
        llvm_url=llvm_url,
        layout=layout,
        triton_version_source=version_source,
        llvm_commit_source=f"{layout.llvm_pin_file} at Triton {triton_commit[:12]} ({triton_where})",
        llvm_url_source=llvm_url_source,
        torch_commit=torch_commit,
        torch_version=torch_version,
        pytorch_url=pytorch_url,
        triton_url=triton_location.url,
        backend=backend,
        notes=tuple(notes),
    )


def _read_layout(ctx: AppContext, location: RepoUrl, commit: str) -> tuple[TritonLayout, str]:
    """Layout facts at the Triton commit: from the workspace checkout when it has the commit."""
    with ExitStack() as stack:
        local = _triton_reader_source(ctx, commit)
        reader: FileReader
        if local is not None:
            reader = LocalRepoReader(ctx.workspace.src / "triton", local, commit, ctx.runner)
        else:
            try:
                reader = stack.enter_context(open_reader(location, commit, ctx.runner))
            except RefNotFound:
                # PyTorch (or the user) names a commit this Triton repository does not have.
                raise MismatchError(
                    f"Triton commit {commit} is not in {redact(location.url)}",
                    fix="point --triton-url at a repository that has it (a fork?), or pass --triton-commit SHA",
                ) from None
        read = functools.lru_cache(maxsize=None)(reader.read)
        return detect_layout(read), reader.description
