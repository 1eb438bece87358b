"""Everything `tritondev setup` needs to know before it plans, gathered once and changing nothing.

Pins, the toolchain, the machine's resources, the target interpreter (probed once, shared with the
command: bootstrap.core.target.interpreter.Target), the checkouts as the checkout steps will leave them, where
LLVM comes from (`LlvmFacts`: the pinned checkout built here, Triton's package, or your tree), the
LLVM build folders and their records, the stored step records, the user's build variables.
Gathering only reads: a bad pin, a missing tool, an --llvm that cannot serve, or a checkout with
local work (exit 6, unless --allow-dirty) stops setup here, before anything is created.

A checkout's state after its step is known in advance: ensure_checkout runs once with a dry-run
runner (reads run, writes are only recorded), which says what it would do; a clean checkout ends at
the pin with no edits, a dirty one kept by --allow-dirty at its current HEAD with its edits. The
llvm-project checkout is looked at in a thread while the rest is gathered (its check for local
changes is the longest read of a no-op); its errors are raised after the Triton checkout's.

`refresh` re-reads the few facts a step that ran can change (the new venv, the Triton checkout's
files, what is installed) for setup's driver (bootstrap.pipeline.setup.run) to plan the rest with.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import MismatchError, UsageError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import PlannedCommand, Runner
from bootstrap.core.settings.settings_table import Settings
from bootstrap.core.settings.values import LlvmFromSource
from bootstrap.core.target.interpreter import WORKSPACE_VENV, Target, TargetPython
from bootstrap.git.adopt import check_clone, inspect_clone
from bootstrap.git.checkouts import CheckoutAction, CheckoutReport, ensure_checkout
from bootstrap.git.history import History
from bootstrap.git.layout import llvm_projects
from bootstrap.git.pinned import Pins
from bootstrap.git.pins import PinInputs, resolve
from bootstrap.pipeline.built.records import Records, StepRecord
from bootstrap.pipeline.ccache.remote import remote_env
from bootstrap.pipeline.distcc import client as distcc
from bootstrap.pipeline.distcc.client import DistccSetup
from bootstrap.pipeline.host.buildtree import setup_py_build_folder, triton_cmake_dirs
from bootstrap.pipeline.host.fresh_cache import CacheView, read_cache, resolve_path
from bootstrap.pipeline.host.jobs import Resources, detect
from bootstrap.pipeline.host.offline import OfflineBuild, plan_offline
from bootstrap.pipeline.host.toolchain import Toolchain, detect_toolchain
from bootstrap.pipeline.host.triton_configure import TOOL_ENTRIES
from bootstrap.pipeline.llvm import builds as llvm_builds
from bootstrap.pipeline.llvm import plan as llvm_steps
from bootstrap.pipeline.llvm import source as llvm_source
from bootstrap.pipeline.llvm.auto import AutoDecision, Learnt
from bootstrap.pipeline.llvm.package import llvm_info_text
from bootstrap.pipeline.llvm.source import PrebuiltPackage, SourceBuild, UserTree
from bootstrap.pipeline.recipe.era import llvm_era
from bootstrap.pipeline.recipe.llvm import llvm_build_key
from bootstrap.pipeline.recipe.triton import ALWAYS_UNSET, ONLINE_UNSET
from bootstrap.pipeline.setup import target_env as install

# The user's own variables that change what a build produces: inputs of the build steps, so that
# changing one (say CXXFLAGS, or TRITON_APPEND_CMAKE_ARGS) rebuilds what it affects.
COMPILER_ENV = ("CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS")
TRITON_USER_ENV = (
    "TRITON_APPEND_CMAKE_ARGS", "TRITON_BUILD_PROTON", "TRITON_BUILD_WITH_ASAN", "TRITON_EXT_ENABLED",
    "TRITON_PLUGIN_DIRS", "TRITON_WHEEL_NAME", "TRITON_WHEEL_VERSION_SUFFIX", "TRITON_STABLE_ABI",
    "TRITON_LLVM_SYSTEM_SUFFIX", "TRITON_AMD_CODEGEN_PATH", "PYBIND11_SYSPATH",
)
# Steps whose records live in <workspace>/state/steps (the LLVM steps keep theirs in the build folder).
RECORDED_STEPS = ("purge", "triton-requirements", "triton-install", "verify")
ADOPTED: CheckoutAction = "adopted"  # the checkout action of your own clone (--triton-src)


def ambient(names: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in names if name in environ}


@dataclass(frozen=True)
class CheckoutFacts:
    """A checkout as its step will leave it, and what that step would run to get it there."""

    name: str
    report: CheckoutReport  # from the dry pass: action, HEAD now, local work
    commands: tuple[PlannedCommand, ...]  # what ensure_checkout would run (none: it is in place)
    edits: str = ""  # digest of the kept local changes ("" when the checkout will be clean)
    summary: str = ""  # an adopted clone: its branch and what is uncommitted, in one line

    @property
    def path(self) -> Path:
        return self.report.path

    @property
    def commit(self) -> str:
        return self.report.commit

    @property
    def kept(self) -> bool:
        """Built as it stands: local work kept (--allow-dirty), or your own clone (--triton-src)."""
        return self.report.action in ("dirty-kept", ADOPTED)

    @property
    def adopted(self) -> bool:
        """Your own clone (--triton-src): tritondev writes nothing into it."""
        return self.report.action == ADOPTED

    @property
    def adopted_line(self) -> str:
        """What setup builds when this is your clone: said before anything runs, as the plan says it."""
        return f"building your clone {self.path} as it stands (--triton-src): {self.summary}"

    @property
    def head(self) -> str:
        return self.report.head if self.kept else self.report.commit

    @property
    def dirty_files(self) -> tuple[str, ...]:
        return self.report.dirty_files if self.kept else ()


@dataclass(frozen=True)
class LlvmCheckout:
    """LLVM built in the workspace from the pinned llvm-project checkout (`--llvm source`, or auto's choice)."""

    checkout: CheckoutFacts
    build: SourceBuild = dataclasses.field(default_factory=SourceBuild)

    @property
    def auto(self) -> AutoDecision | None:
        return self.build.auto

    @property
    def notices(self) -> tuple[str, ...]:
        return self.build.notices

    def expected_revision(self, pin: str) -> str:
        return self.build.expected_revision(pin)

    def elsewhere(self, folder: Path) -> str:
        return self.build.elsewhere(folder)

    def to_json(self) -> dict[str, object]:
        return self.build.to_json()


# Where LLVM comes from, as setup plans with it: the pinned checkout built here, Triton's package, or a tree
# of the user's (`--llvm`, with auto's choice made).
LlvmFacts = LlvmCheckout | PrebuiltPackage | UserTree


@dataclass(frozen=True)
class TargetFacts:
    """The environment Triton is installed into."""

    executable: Path
    origin: str
    venv: Path | None  # the workspace venv, when it is the target
    create_venv: bool  # ... and it is missing, or our creation of it was cut short
    clear_venv: bool  # ... cut short: made again with --clear
    base_python: str  # the interpreter that creates the venv
    python: TargetPython | None  # inspected; None while the venv is still to be created
    listing: str = ""  # install.environment_listing of its site-packages
    requirements_present: bool = False
    own_install_present: bool = False  # triton installed (editable) from this workspace's checkout
    fresh: bool = False  # created by this run: nothing but pip and setuptools in it


@dataclass(frozen=True)
class SetupFacts:
    workspace: Workspace
    settings: Settings
    dry_run: bool
    pins: Pins
    toolchain: Toolchain
    tools_cache_present: bool  # state/tools.json is there (else it is written once the facts proved good)
    resources: Resources
    remote_env: tuple[tuple[str, str], ...]  # CCACHE_REMOTE_STORAGE & co. for the build commands
    environment: Mapping[str, str]  # the user's variables of COMPILER_ENV and TRITON_USER_ENV that are set
    offline: OfflineBuild | None  # --offline: TRITON_OFFLINE_BUILD and what replaces the downloads
    target: TargetFacts
    triton: CheckoutFacts
    llvm: LlvmFacts  # where LLVM comes from: its checkout built here, Triton's package, or your tree
    llvm_projects: tuple[str, ...] | None  # the LLVM_PROJECTS default of build-llvm-project.sh at the pin
    llvm_folders: llvm_builds.LlvmFolders
    records: Mapping[str, StepRecord]
    setup_files: str = ""  # install.setup_files_digest of the Triton checkout
    triton_built: bool = False  # setup.py's build folder (build/cmake.*) is there
    learnt: Learnt | None = None  # what --llvm auto asked the package host this run (the plan remembers it)
    base_path: str = ""  # the PATH setup runs with (setup.py gets the target's scripts folder first)
    ignored_env: tuple[str, ...] = ()  # the user's variables kept from setup.py (TRITON_BUILD_DIR, tool paths)
    triton_cache: CacheView | None = None  # setup.py's build folder for the target, as its CMakeCache.txt has it
    llvm_cache: CacheView | None = None  # this workspace's own LLVM build folder (its key's), likewise
    # Paths as the file system has them (links resolved, bare program names looked up); the identity for
    # hand-made facts. The rule of bootstrap.pipeline.host.fresh_cache compares such paths.
    resolve: Callable[[str], str] = str
    tool_env: Mapping[str, str] = dataclasses.field(default_factory=dict)  # the user's JSON_SYSPATH, TRITON_*_PATH
    distcc: DistccSetup | None = None  # the distcc setting: its hosts, proven before the first build step
    home: str = ""  # $HOME: where Triton 3.0/3.1's setup.py downloads (pybind11 among them)

    @property
    def setup_dir(self) -> Path:
        return setup_dir_of(self.pins, self.triton.path)

    @property
    def checkouts(self) -> tuple[CheckoutFacts, ...]:
        """The checkouts setup makes or uses: Triton's, and LLVM's when LLVM is built here."""
        return (self.triton, self.llvm.checkout) if isinstance(self.llvm, LlvmCheckout) else (self.triton,)


def setup_dir_of(pins: Pins, triton_src: Path) -> Path:
    """Where setup.py is in the Triton checkout (the root, or python/ before 3.4)."""
    where = pins.layout.setup_py_dir
    return triton_src if where == "." else triton_src / where


def find_python3() -> str:
    return shutil.which("python3") or os.environ.get("PYTHON", "python3")


def ignored_variables(offline: OfflineBuild | None, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The user's variables that setup.py does not get (recipe_triton.ALWAYS_UNSET / ONLINE_UNSET)."""

    environ = os.environ if environ is None else environ
    names = ALWAYS_UNSET + (() if offline is not None else ONLINE_UNSET)
    return tuple(name for name in names if name in environ)


def history_of(name: str) -> History:
    """Triton's checkout has the history contributors need (log, bisect, rebase), LLVM's the pin."""
    return "blobless" if name == "triton" else "pin"


def observe_adopted(runner: Runner, root: Path) -> CheckoutFacts:
    """Your own clone as it stands: nothing will run on it, its uncommitted files are the build's edits."""

    runner = runner.logging_to(None)
    clone = inspect_clone(check_clone(root, runner), runner)
    report = CheckoutReport(clone.root, clone.head, clone.head, clone.changes, (), ADOPTED)
    return CheckoutFacts("triton", report, (), install.file_state(clone.root, clone.changes), clone.describe())


def observe_checkout(settings: Settings, workspace: Workspace, runner: Runner, name: str, url: str,
                     commit: str) -> CheckoutFacts:
    """The checkout after its step, from a dry pass of ensure_checkout (DirtyCheckout raised here)."""
    if name == "triton" and settings.triton_src is not None:
        return observe_adopted(runner, settings.triton_src)
    dry = runner.rehearsal()
    report = ensure_checkout(name, url, commit, workspace.src / name, dry, allow_dirty=settings.allow_dirty,
                             full_history=settings.full_history, history=history_of(name))
    commands = tuple(c for c in dry.history if not c.probe)
    kept = report.action == "dirty-kept"
    return CheckoutFacts(name, report, commands, install.file_state(report.path, report.dirty_files) if kept else "")


def observe_target(workspace: Workspace, target: Target, runner: Runner, setup_dir: Path,
                   requires: Sequence[str]) -> TargetFacts:
    """The target environment; inspected through `target` (one probe per command, shared)."""
    executable, origin = target.executable, target.origin
    venv = workspace.venv if origin == WORKSPACE_VENV else None
    cut_short = venv is not None and StateFiles(workspace.state).venv_marker.exists()
    if venv is not None and (cut_short or not executable.exists()):
        return TargetFacts(executable, origin, venv, True, cut_short, find_python3(), None)
    python = target.python(runner)
    site = python.site_packages
    return TargetFacts(
        executable, origin, venv, False, False, find_python3(), python,
        listing=install.environment_listing(site),
        requirements_present=install.requirements_present(site, requires),
        own_install_present=install.own_install_present(site, setup_dir),
    )


def _kept_projects(triton: CheckoutFacts, pinned: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """A checkout built as it stands (--allow-dirty) uses its own script; else the pinned commit's."""
    if not triton.kept:
        return pinned

    def read(path: str) -> str | None:
        try:
            return read_regular_text(triton.path / path)
        except OSError:
            return None

    return llvm_projects(read)


def gather_facts(settings: Settings, workspace: Workspace, runner: Runner, target: Target, *,
                 dry_run: bool) -> SetupFacts:
    """Read everything setup plans from. Raises (before anything changes) on bad pins, missing tools,
    a checkout with local work, a bad --ccache-remote for this ccache, distcc without distcc or ccache."""

    s, ws = settings, workspace
    # Pins first: a bad commit, ref or pin file stops setup before anything else is looked at.
    pins = resolve(PinInputs(s, ws, runner, target, dry_run))
    with ThreadPoolExecutor(max_workers=1) as pool:
        # llvm-project's check for local changes (lstat of ~170,000 files) runs while the rest is
        # gathered; its errors are raised below, after the Triton checkout's, as before.
        llvm_checkout = (pool.submit(observe_checkout, s, ws, runner, "llvm-project", pins.llvm_url, pins.llvm_commit)
                         if isinstance(s.llvm_source, LlvmFromSource) else None)
        tools_cache = StateFiles(ws.state).tool_versions
        toolchain = detect_toolchain(runner, use_lld=s.lld, use_ccache=s.ccache,
                                     cache_file=tools_cache if tools_cache.is_file() else None,
                                     cmake_minimum=pins.layout.cmake_minimum)
        triton = observe_checkout(s, ws, runner, "triton", pins.triton_url, pins.triton_commit)
        observed = llvm_source.observe(s, pins, llvm_info_text(pins.layout.llvm_info, triton.path, kept=triton.kept),
                                       runner,
                                       state=ws.state if ws.state.is_dir() else None)
        llvm: LlvmFacts
        match observed.use:
            case SourceBuild() as build:  # --llvm source, or what auto decided
                llvm = LlvmCheckout(llvm_checkout.result() if llvm_checkout is not None
                                    else observe_checkout(s, ws, runner, "llvm-project", pins.llvm_url,
                                                          pins.llvm_commit), build)
            case PrebuiltPackage() | UserTree() as given:
                llvm = given
    offline = plan_offline(s.offline, s.backend, pins.layout)
    projects = _kept_projects(triton, pins.layout.llvm_projects)
    era = llvm_era(projects, pins.layout.version or pins.triton_version, s.backend)
    key = llvm_build_key(pins.llvm_commit, s.llvm_build_type, era, toolchain)
    match llvm:
        case LlvmCheckout(checkout=checkout):
            folders = llvm_builds.observe(ws.llvm_builds / key, checkout.path)
        case PrebuiltPackage() | UserTree():
            folders = llvm_steps.observe_folders(ws.llvm_builds, llvm)
    target_facts = observe_target(ws, target, runner, setup_dir_of(pins, triton.path), pins.layout.build_requires)
    check_python_bounds(pins, target_facts)
    check_build_type(pins, s.build_type)
    facts = SetupFacts(
        workspace=ws, settings=s, dry_run=dry_run, pins=pins, toolchain=toolchain,
        tools_cache_present=tools_cache.is_file(), resources=detect(),
        remote_env=tuple(remote_env(s.ccache_remote, toolchain.ccache, ws.root).items()),
        environment=ambient(COMPILER_ENV + TRITON_USER_ENV), offline=offline,
        target=target_facts, triton=triton, llvm=llvm,
        llvm_projects=projects, llvm_folders=folders, records=Records(ws.state).load_all(RECORDED_STEPS),
        learnt=observed.learnt, base_path=os.environ.get("PATH", ""), ignored_env=ignored_variables(offline),
        llvm_cache=read_llvm_cache(folders), resolve=resolve_path, tool_env=ambient(TOOL_ENTRIES),
        distcc=distcc.observe(s, toolchain.ccache is not None), home=os.environ.get("HOME", ""),
    )
    return refresh_triton_files(facts)


def check_build_type(pins: Pins, build_type: str) -> None:
    """CMake's Release reaches setup.py's configure only through TRITON_APPEND_CMAKE_ARGS (3.2 on): a
    checkout whose setup.py does not read it builds no plain Release."""
    if build_type == "Release" and not pins.layout.setup_args.append_cmake_args:
        version = pins.layout.version or pins.triton_version or "this Triton"
        raise UsageError(
            f"--build-type Release: Triton {version}'s setup.py builds no plain Release (no variable chooses it,"
            " and it reads no TRITON_APPEND_CMAKE_ARGS, which came in 3.2)",
            fix="use --build-type TritonRelBuildWithAsserts (setup.py's default, -O2 -g) or RelWithDebInfo",
        )


def check_python_bounds(pins: Pins, target: TargetFacts) -> None:
    """The checkout's setup.py names the Pythons it installs into (python_requires; newest main has an
    upper bound too): a target outside them stops setup here, not in pip after the builds."""
    args = pins.layout.setup_args
    if target.python is not None and args.refuses(target.python.version):
        raise MismatchError(f"Triton {pins.triton_commit[:12]} requires Python {args.python_requires}"
                            f" (its setup.py); the target {target.executable} is Python {target.python.version}",
                            fix=f"pass --python with a Python {args.python_requires}, or another --triton-commit")


def refresh_target(facts: SetupFacts, runner: Runner, target: Target) -> SetupFacts:
    """The target environment read again (after the venv was created, or packages were installed)."""
    found = observe_target(facts.workspace, target, runner, facts.setup_dir, facts.pins.layout.build_requires)
    return dataclasses.replace(facts, target=found)


def refresh_triton_files(facts: SetupFacts) -> SetupFacts:
    """The Triton checkout's files read again (after the checkout moved, or setup.py built)."""
    python = facts.target.python
    folder = setup_py_build_folder(facts.setup_dir, python.version) if python is not None else None
    return dataclasses.replace(facts, setup_files=install.setup_files_digest(facts.setup_dir),
                               triton_built=bool(triton_cmake_dirs(facts.setup_dir)),
                               triton_cache=read_cache(folder) if folder is not None else None)


def read_llvm_cache(folders: llvm_builds.LlvmFolders) -> CacheView | None:
    """The cache of the workspace's own LLVM build folder (a reused one is another workspace's to keep)."""
    return read_cache(folders.mine) if folders.own is not None else None


# What each step, once it ran, can change of the facts the later steps are planned from.
def refresh(facts: SetupFacts, step: str, runner: Runner, target: Target) -> SetupFacts:
    if step == "venv":
        target.forget()
        fresh = refresh_target(facts, runner, target)
        return dataclasses.replace(fresh, target=dataclasses.replace(fresh.target, fresh=True))
    if step == "checkout-triton":
        return refresh_triton_files(facts)
    if step == "llvm-configure":
        return dataclasses.replace(facts, llvm_cache=read_llvm_cache(facts.llvm_folders))
    if step in ("purge", "triton-requirements", "triton-install"):
        return refresh_triton_files(refresh_target(facts, runner, target))
    return facts
