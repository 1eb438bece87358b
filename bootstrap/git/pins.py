"""Which Triton to build, and against which LLVM, and where each answer came from.

Triton commit, first match wins:
  1. --triton-commit SHA (or triton_commit from a file/env, unless torch_ref was given at a
     higher-precedence level, e.g. on the command line);
  2. --torch-ref REF: PyTorch's pin at that tag, branch or commit;
  3. the torch installed in the target environment: its commit from torch/version.py (read, never
     imported); a release build maps to its vX.Y.Z tag;
  4. PyTorch main.
PyTorch's pin: .ci/docker/ci_commit_pins/triton.txt, else .github/ci_commit_pins/triton.txt (old
refs); --backend amd before PyTorch 2.5 reads triton-rocm.txt, a commit of the ROCm fork
(bootstrap.git.pins_pytorch). The version: .ci/docker/triton_version.txt, else setup.py at the
Triton commit. LLVM: Triton's pin file at that commit (bootstrap.git.layout), from the repository
its own files name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import ConfigError, MismatchError, Offline
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.redact import redact
from bootstrap.git.blobs import LocalRepoReader, RefNotFound, git_dir_of
from bootstrap.git.checkouts import repository_url
from bootstrap.git.fetch import FileReader, open_reader
from bootstrap.git.layout import LAYOUT_FILES, TritonLayout, detect_layout
from bootstrap.git.pinned import Pins, _describe_source, llvm_url_for
from bootstrap.git.pins_adopted import adopted_pins, clone_around
from bootstrap.git.pins_pytorch import (
    PIN_DIRS,
    ROCM_TRITON_URL,
    TRITON_VERSION_FILE,
    PinReader,
    installed_torch_requirement,
    pytorch_pin,
    read_triton_version,
)
from bootstrap.git.refs import RepoUrl, validate_commit, validate_ref, validate_repo_url

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.core.io.workspace import Workspace
    from bootstrap.core.process.runner import Runner
    from bootstrap.core.settings.settings_table import Settings
    from bootstrap.core.target.interpreter import Target, TargetPython

__all__ = ["PIN_DIRS", "PinInputs", "Pins", "read_pytorch_pin", "read_triton_version", "resolve", "resolve_pins"]

BACKENDS = ("nvidia", "amd")
DEFAULT_TORCH_REF = "main"
_SOURCE_RANK = {"cli": 3, "env": 2, "file": 1, "default": 0}


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
    """torch/version.py in the command's target environment, read as text; None when there is no torch."""
    return installed_torch(ctx.target_python_if_present())


def installed_torch(target: TargetPython | None) -> InstalledTorch | None:
    """torch/version.py in the target environment, read as text; None when there is no torch."""
    if target is None:
        return None  # no environment yet (setup creates it), hence no torch in it
    for folder in target.site_packages:
        path = folder / "torch" / "version.py"
        try:
            text = read_regular_text(path)
        except OSError:
            continue
        if text:
            version, git_version = parse_torch_version_py(text)
            if version:
                return InstalledTorch(version, git_version, path)
    return None


# -- resolution --------------------------------------------------------------------------------


def _rank(source: str) -> int:
    return _SOURCE_RANK.get(source.split(":", 1)[0], 0)


def read_pytorch_pin(reader: PinReader, backend: str) -> tuple[str, str, list[str]]:
    """(Triton commit, pin file path, notes) from PyTorch's files at one ref."""
    pin = pytorch_pin(reader, backend)
    return pin.commit, pin.path, pin.notes


@dataclass(frozen=True)
class PinInputs:
    """What resolving the pins reads: the settings, the workspace (its Triton checkout, PyTorch's cache), a
    runner, and the target interpreter, whose installed torch may choose PyTorch's ref."""

    settings: Settings
    workspace: Workspace
    runner: Runner
    target: Target
    dry_run: bool = False

    def installed_torch(self) -> InstalledTorch | None:
        return installed_torch(self.target.python_if_present(self.runner))


def _triton_reader_source(where: PinInputs, commit: str) -> Path | None:
    """The workspace's Triton checkout, when it already holds `commit` (nothing to download)."""
    checkout = where.workspace.triton_src
    git_dir = git_dir_of(checkout, where.runner)
    if git_dir is None:
        return None
    result = where.runner.capture(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
        step="pins",
        check=False,
    )
    return git_dir if result.returncode == 0 else None


@dataclass
class _TritonChoice:
    """Where the Triton commit came from: given outright, or PyTorch's pin at a ref."""

    commit: str
    source: str
    torch_ref: str | None = None
    torch_source: str = ""
    torch_version: str | None = None
    torch_commit: str | None = None
    pytorch_url: str | None = None
    version: str | None = None  # Triton's version as PyTorch states it
    version_source: str = ""
    rocm_fork: bool = False  # PyTorch < 2.5's triton-rocm.txt: a commit of the ROCm fork


def resolve_pins(ctx: AppContext, *, use_cache: bool | None = None) -> Pins:
    """The pins of a command's settings, workspace and target (see `resolve`)."""
    return resolve(PinInputs(ctx.settings, ctx.workspace, ctx.runner, ctx.target(), ctx.dry_run), use_cache=use_cache)


def resolve(where: PinInputs, *, use_cache: bool | None = None) -> Pins:
    """Resolve torch ref -> Triton commit -> LLVM commit, reading only the files needed.

    use_cache: keep PyTorch's pin objects in <workspace>/src/pytorch.git for next time. Default:
    only when not --dry-run and the workspace exists; otherwise a temporary repository is used
    (borrowing objects from an existing cache without writing to it).
    """
    settings = where.settings
    if settings.backend not in BACKENDS:  # settings already restrict the choices; this guards library callers
        raise ConfigError(f"unknown backend {settings.backend!r}", fix=f"use one of {', '.join(BACKENDS)}")
    if settings.llvm_url:  # checked before any git call, as the Triton URL is
        validate_repo_url(settings.llvm_url, "LLVM URL")
    if settings.triton_src is not None:  # your own clone: its HEAD, its own LLVM pin
        return adopted_pins(settings, where.runner, settings.triton_src)
    validate_repo_url(repository_url(settings, "triton", settings.triton_url), "Triton URL")
    notes: list[str] = []
    choice = _given_triton_commit(settings, notes) or _pytorch_pin(where, notes, use_cache)
    triton_location = _triton_location(settings, choice, notes)
    layout, triton_where = _read_layout(where, triton_location, choice.commit)
    version, version_source = choice.version, choice.version_source
    if version is None and layout.version is not None:
        version, version_source = layout.version, f"setup.py at Triton {choice.commit[:12]} ({triton_where})"
    elif version is not None and layout.version is not None and version != layout.version:
        notes.append(f"PyTorch says Triton {version}, setup.py at the pin says {layout.version}")
    llvm_url, llvm_url_source = llvm_url_for(settings, layout)
    if layout.llvm_pin_note:
        notes.append(layout.llvm_pin_note)
    return Pins(
        torch_ref=choice.torch_ref,
        torch_ref_source=choice.torch_source,
        triton_commit=choice.commit,
        triton_commit_source=choice.source,
        triton_version=version,
        llvm_commit=layout.llvm_commit,
        llvm_url=llvm_url,
        layout=layout,
        triton_version_source=version_source,
        llvm_commit_source=f"{layout.llvm_pin_file} at Triton {choice.commit[:12]} ({triton_where})",
        llvm_url_source=llvm_url_source,
        torch_commit=choice.torch_commit,
        torch_version=choice.torch_version,
        pytorch_url=choice.pytorch_url,
        triton_url=triton_location.url,
        backend=settings.backend,
        notes=tuple(notes),
    )


def pins_here(ctx: AppContext) -> Pins:
    """`tritondev pins`: as resolve_pins (nothing kept), but run inside a Triton checkout with nothing chosen
    (as setup finds it), that checkout's own pins, as if given with --triton-src; reading it changes nothing,
    so nothing is asked."""
    around = clone_around(ctx.settings, ctx.runner, ctx.workspace.triton_src)
    if around is not None:
        ui.note(
            f"reading the Triton checkout you are in, {around} (as --triton-src); --torch-ref or "
            "--triton-commit asks PyTorch's pin instead"
        )
        ctx = ctx.adopting(around)
    return resolve_pins(ctx, use_cache=False)


def _given_triton_commit(settings: Settings, notes: list[str]) -> _TritonChoice | None:
    """The triton_commit setting, unless a torch_ref was given at a higher-precedence level."""
    commit_src, ref_src = settings.source_of("triton_commit"), settings.source_of("torch_ref")
    if not settings.triton_commit or (settings.torch_ref and _rank(commit_src) < _rank(ref_src)):
        return None
    if settings.torch_ref:
        notes.append(f"torch_ref {settings.torch_ref!r} ignored: triton_commit ({_describe_source(commit_src)}) wins")
    return _TritonChoice(
        validate_commit(settings.triton_commit, "--triton-commit"),
        _describe_source(commit_src),
        torch_source="not used: the Triton commit was given",
    )


def _torch_ref(where: PinInputs, notes: list[str]) -> tuple[str, str, str | None]:
    """(PyTorch ref, where it came from, installed torch version): --torch-ref, the installed torch, main."""
    settings = where.settings
    if settings.torch_ref:
        return validate_ref(settings.torch_ref, "--torch-ref"), _describe_source(settings.source_of("torch_ref")), None
    default = "default: PyTorch main (no --torch-ref, no torch in the target environment)"
    installed = where.installed_torch()
    if installed is None:
        return DEFAULT_TORCH_REF, default, None
    ref, why = torch_ref_for(installed.version, installed.git_version)
    if ref is None:
        notes.append(f"installed torch {installed.version} names no commit; using PyTorch main")
        return DEFAULT_TORCH_REF, default, installed.version
    return validate_ref(ref, str(installed.path)), f"{why} ({installed.version}, {installed.path})", installed.version


def _pytorch_pin(where: PinInputs, notes: list[str], use_cache: bool | None) -> _TritonChoice:
    """PyTorch's Triton pin (and stated Triton version) at the chosen ref."""
    settings = where.settings
    torch_ref, torch_source, torch_version = _torch_ref(where, notes)
    cache_repo = where.workspace.pytorch_cache
    if use_cache is None:
        use_cache = not where.dry_run and where.workspace.root.is_dir()
    pytorch_url = repository_url(settings, "pytorch", settings.pytorch_url)
    location = validate_repo_url(pytorch_url, "PyTorch URL")
    borrow = cache_repo if (not use_cache and (cache_repo / "objects").is_dir()) else None
    with (
        _offline_said(where, torch_ref),
        open_reader(
            location, torch_ref, where.runner, cache=cache_repo if use_cache else None, borrow_from=borrow
        ) as reader,
    ):
        pin = pytorch_pin(reader, settings.backend)
        notes.extend(pin.notes)
        version = read_triton_version(reader)
        choice = _TritonChoice(
            pin.commit,
            f"{pin.path} in PyTorch ({reader.description})",
            torch_ref=torch_ref,
            torch_source=torch_source,
            torch_version=torch_version,
            torch_commit=reader.commit,
            pytorch_url=pytorch_url,
            version=version,
            version_source=f"{TRITON_VERSION_FILE} in PyTorch ({reader.description})" if version else "",
            rocm_fork=pin.rocm_fork,
        )
        fallback_note = getattr(reader, "note", "")
        if fallback_note:
            notes.append(fallback_note)
    return choice


@contextmanager
def _offline_said(where: PinInputs, torch_ref: str) -> Iterator[None]:
    """No network for PyTorch's pin: say what is known here (the installed torch's triton requirement) and
    the way on without PyTorch (--triton-commit)."""
    try:
        yield
    except Offline as exc:
        target = where.target.python_if_present(where.runner)
        known = installed_torch_requirement(target.site_packages) if target is not None else None
        here = (
            f"; known here: the installed torch {known[0]} requires {known[1]} (its METADATA), but the commit "
            "is in PyTorch's pin file"
            if known
            else ""
        )
        raise Offline(
            f"{exc.message}: PyTorch's Triton pin at {torch_ref} cannot be read{here}",
            hosts=exc.hosts,
            fix="give the Triton commit yourself: --triton-commit SHA skips PyTorch (with --triton-url PATH or "
            "--mirror DIR where that commit is); or connect to the network",
        ) from None


def _triton_location(settings: Settings, choice: _TritonChoice, notes: list[str]) -> RepoUrl:
    """The Triton repository: the user's URL or mirror; else ROCm's fork for a triton-rocm.txt pin."""
    if choice.rocm_fork:
        if not settings.source_of("triton_url").given and settings.mirror is None:
            notes.append("PyTorch before 2.5 built ROCm wheels from the ROCm fork of Triton (triton-rocm.txt)")
            return validate_repo_url(ROCM_TRITON_URL, "Triton URL")
        notes.append("triton-rocm.txt names a commit of the ROCm fork (ROCm/triton): the Triton URL must have it")
    return validate_repo_url(repository_url(settings, "triton", settings.triton_url), "Triton URL")


def _read_layout(where: PinInputs, location: RepoUrl, commit: str) -> tuple[TritonLayout, str]:
    """Layout facts at the Triton commit: from the workspace checkout when it has the commit."""
    with ExitStack() as stack:
        local = _triton_reader_source(where, commit)
        reader: FileReader
        if local is not None:
            reader = LocalRepoReader(where.workspace.triton_src, local, commit, where.runner)
            reader.read_ahead(LAYOUT_FILES)
        else:
            try:
                reader = stack.enter_context(open_reader(location, commit, where.runner))
            except RefNotFound:
                # PyTorch (or the user) names a commit this Triton repository does not have.
                raise MismatchError(
                    f"Triton commit {commit} is not in {redact(location.url)}",
                    fix="point --triton-url at a repository that has it (a fork?), or pass --triton-commit SHA",
                ) from None
        read = functools.lru_cache(maxsize=None)(reader.read)
        return detect_layout(read), reader.description
