"""Where the LLVM/MLIR that Triton builds against comes from: `--llvm auto|source|prebuilt|PATH`.

- auto (the default): prebuilt when Triton has a package for the pin and this machine, else source
  (bootstrap.pipeline.llvm.auto decides, asking the package host at most once per pin).
- source: the pinned llvm-project commit, cloned and built (llvm-configure, llvm-build).
- prebuilt: the package Triton's CI built for the pin, named and checked as Triton's own setup.py
  and python/build_helpers.py do (bootstrap.pipeline.llvm.package).
- PATH: an LLVM build or install tree the user already has, checked for what Triton needs (MLIR's
  CMake package, FileCheck, the GPU targets) and for its revision (`inspect_tree`).

`observe` resolves the setting's `LlvmSource` into what setup uses (`LlvmUse`). Everything here reads
and decides, and writes nothing (what --llvm auto learnt is handed back for setup to record); the
download is bootstrap.pipeline.llvm.download, the extraction bootstrap.pipeline.llvm.archive, the steps
that use them bootstrap.pipeline.llvm.plan.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ConfigError, MismatchError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.settings.values import LlvmAuto, LlvmFromSource, LlvmPrebuilt, LlvmTree
from bootstrap.git.setup_py import SetupPyArgs
from bootstrap.pipeline.host.buildtree import read_vcs_revision
from bootstrap.pipeline.llvm.auto import no_package_reason, observe_auto
from bootstrap.pipeline.llvm.package import Package, local_package, package_for
from bootstrap.pipeline.llvm.requirements import era_missing
from bootstrap.pipeline.llvm.suffix import SUFFIX_ENV, Host, detect_host, host_suffix, os_release_id
from bootstrap.pipeline.recipe.era import llvm_era

__all__ = ["SUFFIX_ENV", "Host", "detect_host", "host_suffix", "os_release_id"]

if TYPE_CHECKING:
    from bootstrap.core.process.runner import Runner
    from bootstrap.core.settings.settings_table import Settings
    from bootstrap.git.pinned import Pins
    from bootstrap.pipeline.llvm.auto import AutoDecision, Learnt

_HEX40 = re.compile(r"^[0-9a-f]{40}$")


# -- an LLVM tree the user has -------------------------------------------------------------------

MLIR_CONFIG = Path("lib/cmake/mlir/MLIRConfig.cmake")
LLVM_CONFIG_CMAKE = Path("lib/cmake/llvm/LLVMConfig.cmake")
FILECHECK = Path("bin/FileCheck")
LLVM_CONFIG = Path("bin/llvm-config")
_TARGETS_RE = re.compile(r'^\s*set\(\s*LLVM_TARGETS_TO_BUILD\s+"?([^")]*)"?\s*\)', re.MULTILINE)
_WHY_MISSING = {
    MLIR_CONFIG: "MLIR's CMake package (mlir not in LLVM_ENABLE_PROJECTS?)",
    LLVM_CONFIG_CMAKE: "LLVM's CMake package",
    FILECHECK: "FileCheck, which Triton copies into its package (LLVM_BUILD_UTILS / LLVM_INSTALL_UTILS off?)",
}


def parse_targets(text: str) -> tuple[str, ...] | None:
    """LLVM_TARGETS_TO_BUILD of an LLVMConfig.cmake (quoted or not); None when it sets none."""
    match = _TARGETS_RE.search(text)
    return tuple(t for t in match.group(1).replace(" ", ";").split(";") if t) if match else None


@dataclass(frozen=True)
class TreeReport:
    """What an LLVM build or install tree has that Triton needs. Read from its files (no process)."""

    path: Path
    missing: tuple[str, ...]  # descriptions of the missing pieces
    targets: tuple[str, ...] | None  # None: not readable from LLVMConfig.cmake
    revision: str | None  # None: no VCSRevision.h (llvm-config may still know)

    def to_json(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "missing": list(self.missing),
            "targets": list(self.targets) if self.targets is not None else None,
            "revision": self.revision,
        }


def inspect_tree(path: Path) -> TreeReport:
    if not path.is_dir():
        raise ConfigError(
            f"--llvm {path}: no such folder",
            fix="give the folder of an LLVM build or install"
            " (the one holding bin/ and lib/cmake/), or use --llvm source or --llvm prebuilt",
        )
    if (path / "llvm" / "CMakeLists.txt").is_file() and not (path / LLVM_CONFIG_CMAKE).is_file():
        raise ConfigError(
            f"--llvm {path} is an llvm-project source checkout, not a build",
            fix="give its build folder (the -B folder of its cmake configure)",
        )
    missing = tuple(why for rel, why in _WHY_MISSING.items() if not (path / rel).is_file())
    try:
        targets = parse_targets(read_regular_text(path / LLVM_CONFIG_CMAKE, limit=1 << 24))  # never a FIFO
    except OSError:
        targets = None
    return TreeReport(path, missing, targets, read_vcs_revision(path))


def needed_targets(backend: str) -> tuple[str, ...]:
    """The GPU targets Triton links whatever --backend says (its setup.py builds both backends)."""
    return tuple(t for t in llvm_era(None, None, backend).targets if t != "Native")


def check_contents(tree: TreeReport, backend: str) -> None:
    """ConfigError (exit 2) when the tree lacks what Triton's build needs."""
    if tree.missing:
        raise ConfigError(
            f"--llvm {tree.path} is not an LLVM build Triton can use: it lacks " + "; ".join(tree.missing),
            fix="build LLVM with Triton's flags (docs/llvm-sources.md), or use --llvm source or --llvm prebuilt",
        )
    lacking = [t for t in needed_targets(backend) if tree.targets is not None and t not in tree.targets]
    if lacking:
        raise ConfigError(
            f"--llvm {tree.path} was built without the {' and '.join(lacking)} target(s) Triton links"
            f" (it has {';'.join(tree.targets or ())})",
            fix="configure it with -DLLVM_TARGETS_TO_BUILD=Native;NVPTX;AMDGPU, or use --llvm source",
        )


def judge_tree(
    tree: TreeReport,
    pin: str,
    backend: str,
    allow_mismatch: bool,
    triton_version: str | None = None,
    rules: SetupPyArgs | None = None,
) -> tuple[str, ...]:
    """Raise when the tree cannot serve (exit 2) or is at another revision than the pin (exit 5,
    unless allowed); else the notices to show. `rules`: what the checkout's CMake requires of the tree
    (None: what the newest does)."""
    check_contents(tree, backend)
    missing = era_missing(tree.path, rules or SetupPyArgs())
    if missing:
        raise ConfigError(
            f"--llvm {tree.path} lacks what Triton {triton_version}'s configure requires: " + "; ".join(missing),
            fix="build LLVM with the projects Triton's scripts/build-llvm-project.sh names at this"
            " commit (docs/llvm-sources.md), or use --llvm source or --llvm prebuilt",
        )
    if tree.revision == pin:
        return ()
    shown = tree.revision or "an unknown revision (no include/llvm/Support/VCSRevision.h, no llvm-config answer)"
    if not allow_mismatch:
        raise MismatchError(
            f"--llvm {tree.path} is LLVM {shown}; this Triton pins LLVM {pin}",
            fix="use an LLVM built at the pin, --llvm source or --llvm prebuilt; or build against"
            " it anyway with --allow-llvm-mismatch (LLVM has no stable API: expect compile errors)",
        )
    return (
        f"--llvm {tree.path} is LLVM {shown}, not the pin {pin}: building against it anyway"
        " (--allow-llvm-mismatch); LLVM has no stable C++ API, so the build may fail",
    )


def precheck(settings: Settings) -> None:
    """What can be judged of `--llvm PATH` before the pins are known and anything is written."""
    if isinstance(asked := settings.llvm_source, LlvmTree):
        check_contents(inspect_tree(asked.path), settings.backend)


# -- the facts setup plans from ------------------------------------------------------------------


@dataclass(frozen=True)
class SourceBuild:
    """The pinned llvm-project commit, built in the workspace (`--llvm source`, or what auto chose)."""

    auto: AutoDecision | None = None  # --llvm auto: what it chose and why
    notices: tuple[str, ...] = ()

    def expected_revision(self, pin: str) -> str:
        """The LLVM revision verify requires of the build."""
        return pin

    def elsewhere(self, build: Path) -> str:
        """Why the workspace has no LLVM of its own to configure or build by hand: "" (it has one)."""
        return ""

    def to_json(self) -> dict[str, object]:
        return {"kind": "source", "accepted_revision": None, **_auto_json(self.auto)}


@dataclass(frozen=True)
class PrebuiltPackage:
    """Triton's own package for the pin (`--llvm prebuilt`, or what auto chose)."""

    package: Package
    notices: tuple[str, ...] = ()
    auto: AutoDecision | None = None

    def expected_revision(self, pin: str) -> str:
        return self.package.llvm_hash

    def elsewhere(self, build: Path) -> str:
        return f"LLVM comes from Triton's prebuilt package unpacked in {build} (--llvm prebuilt)"

    def to_json(self) -> dict[str, object]:
        return {
            "kind": "prebuilt",
            "accepted_revision": self.package.llvm_hash,
            "package": self.package.to_json(),
            **_auto_json(self.auto),
        }


@dataclass(frozen=True)
class UserTree:
    """An LLVM build or install tree of the user's (`--llvm PATH`), judged against the pin."""

    tree: TreeReport
    accepted_revision: str | None = None  # another revision than the pin, allowed (--allow-llvm-mismatch)
    notices: tuple[str, ...] = ()

    @property
    def auto(self) -> AutoDecision | None:
        return None  # given by the user: nothing was decided

    def expected_revision(self, pin: str) -> str:
        return self.accepted_revision or pin

    def elsewhere(self, build: Path) -> str:
        return f"LLVM comes from the given path {build} (--llvm {build})"

    def to_json(self) -> dict[str, object]:
        return {"kind": "path", "accepted_revision": self.accepted_revision, "tree": self.tree.to_json()}


# The LLVM setup builds Triton against, as far as it is known before anything runs: --llvm auto has
# decided for a source build or a package by then.
LlvmUse = SourceBuild | PrebuiltPackage | UserTree


def _auto_json(auto: AutoDecision | None) -> dict[str, object]:
    return {} if auto is None else {"auto": {"choice": auto.choice, "why": auto.why, "line": auto.line()}}


def ask_llvm_config(tree: TreeReport, runner: Runner) -> TreeReport:
    """Fill in what the tree's files did not say (revision, targets) from its own llvm-config."""
    tool = tree.path / LLVM_CONFIG
    if (tree.revision is not None and tree.targets is not None) or not tool.is_file():
        return tree
    revision, targets = tree.revision, tree.targets
    if revision is None:
        said = runner.capture([str(tool), "--vcs-revision"], step="llvm-use", check=False, timeout=60)
        word = said.stdout.strip().lower()
        revision = word if said.ok and _HEX40.match(word) else None
    if targets is None:
        said = runner.capture([str(tool), "--targets-built"], step="llvm-use", check=False, timeout=60)
        targets = tuple(said.stdout.split()) if said.ok and said.stdout.strip() else None
    return dataclasses.replace(tree, revision=revision, targets=targets)


def observe(
    settings: Settings,
    pins: Pins,
    info_text: str | None,
    runner: Runner,
    environ: Mapping[str, str] | None = None,
    *,
    state: Path | None = None,
) -> LlvmObserved:
    """The LLVM source setup will use, and what --llvm auto learnt from the package host (for the plan to
    remember). Raises (before anything is created) when it cannot serve. Only reads.

    state: the workspace's state folder, where --llvm auto keeps what it learnt."""
    environ = os.environ if environ is None else environ
    match settings.llvm_source:
        case LlvmAuto(url=url):
            return _observe_auto(settings, url, pins, info_text, environ, state)
        case LlvmFromSource():
            return LlvmObserved(SourceBuild())
        case LlvmPrebuilt(url=url):
            version = pins.layout.version or pins.triton_version
            package = package_for(info_text, pins.llvm_commit, pins.layout.setup_args, detect_host(), environ, url)
            return LlvmObserved(_prebuilt(package, version))
        case LlvmTree(path=path):
            tree = ask_llvm_config(inspect_tree(path), runner)
            notices = judge_tree(
                tree,
                pins.llvm_commit,
                settings.backend,
                settings.allow_llvm_mismatch,
                pins.layout.version or pins.triton_version,
                pins.layout.setup_args,
            )
            return LlvmObserved(UserTree(tree, tree.revision if notices else None, notices))


@dataclass(frozen=True)
class LlvmObserved:
    """What observing the LLVM source found: the LLVM to use, and the package host's answer asked for it
    this run (--llvm auto), which executing the plan records (observing writes nothing)."""

    use: LlvmUse
    learnt: Learnt | None = None


def _prebuilt(package: Package, version: str | None, auto: AutoDecision | None = None) -> PrebuiltPackage:
    notices: tuple[str, ...] = (
        ()
        if package.sha256
        else (
            f"Triton {version or ''} publishes no sha256 for its LLVM packages (cmake/llvm-info.json came with 3.8):"
            f" {package.archive} is unverified",
        )
    )
    return PrebuiltPackage(package, notices, auto)


def _observe_auto(
    settings: Settings, url: str, pins: Pins, info_text: str | None, environ: Mapping[str, str], state: Path | None
) -> LlvmObserved:

    version = pins.layout.version or pins.triton_version
    package: Package | None = None
    why_not = ""
    try:
        package = package_for(info_text, pins.llvm_commit, pins.layout.setup_args, detect_host(), environ, url)
    except MismatchError as exc:
        why_not = no_package_reason(exc)
    local = local_package(package, environ) if package is not None else None
    outcome = observe_auto(
        state or Path("/nonexistent"),
        pins.llvm_commit,
        package.url if package else None,
        why_not,
        offline=settings.offline,
        url_given=settings.source_of("llvm_prebuilt_url").given,
        local=local,
    )
    if outcome.decision.choice == "prebuilt" and package is not None:
        return LlvmObserved(_prebuilt(package, version, outcome.decision), outcome.learnt)
    return LlvmObserved(SourceBuild(outcome.decision), outcome.learnt)
