"""Everything `tritondev setup` needs to know before it plans, gathered once and changing nothing.

Pins, the toolchain, the machine's resources, the target interpreter (probed once, shared with the
command: bootstrap.core.target.interpreter.Target; read in bootstrap.pipeline.setup.target_facts), the
checkouts as the checkout steps will leave them (bootstrap.pipeline.setup.checkout_facts), where LLVM
comes from (`LlvmFacts`: the pinned checkout built here, Triton's package, or your tree), the LLVM build
folders and their records, the stored step records, the user's build variables.
Gathering only reads: a bad pin, a missing tool, an --llvm that cannot serve, or a checkout with
local work (exit 6, unless --allow-dirty) stops setup here, before anything is created.

The llvm-project checkout is looked at in a thread while the rest is gathered (its check for local
changes is the longest read of a no-op); its errors are raised after the Triton checkout's.

`refresh` re-reads the few facts a step that ran can change (the new venv, the Triton checkout's
files, what is installed) for setup's driver (bootstrap.pipeline.setup.run) to plan the rest with.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings_table import Settings
from bootstrap.core.settings.values import LlvmFromSource
from bootstrap.core.target.interpreter import Target
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
from bootstrap.pipeline.setup.checkout_facts import CheckoutFacts, observe_checkout
from bootstrap.pipeline.setup.target_facts import TargetFacts, check_python_bounds, observe_target, will_probe

# The user's own variables that change what a build produces: inputs of the build steps, so that
# changing one (say CXXFLAGS, or TRITON_APPEND_CMAKE_ARGS) rebuilds what it affects.
COMPILER_ENV = ("CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS")
TRITON_USER_ENV = (
    "TRITON_APPEND_CMAKE_ARGS",
    "TRITON_BUILD_PROTON",
    "TRITON_BUILD_WITH_ASAN",
    "TRITON_EXT_ENABLED",
    "TRITON_PLUGIN_DIRS",
    "TRITON_WHEEL_NAME",
    "TRITON_WHEEL_VERSION_SUFFIX",
    "TRITON_STABLE_ABI",
    "TRITON_LLVM_SYSTEM_SUFFIX",
    "TRITON_AMD_CODEGEN_PATH",
    "PYBIND11_SYSPATH",
)
# Steps whose records live in <workspace>/state/steps (the LLVM steps keep theirs in the build folder).
RECORDED_STEPS = ("purge", "triton-requirements", "triton-install", "verify")


def ambient(names: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in names if name in environ}


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


def ignored_variables(offline: OfflineBuild | None, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The user's variables that setup.py does not get (recipe_triton.ALWAYS_UNSET / ONLINE_UNSET)."""

    environ = os.environ if environ is None else environ
    names = ALWAYS_UNSET + (() if offline is not None else ONLINE_UNSET)
    return tuple(name for name in names if name in environ)


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


def gather_facts(
    settings: Settings, workspace: Workspace, runner: Runner, target: Target, *, dry_run: bool
) -> SetupFacts:
    """Read everything setup plans from. Raises (before anything changes) on bad pins, missing tools,
    a checkout with local work, a bad --ccache-remote for this ccache, distcc without distcc or ccache."""

    s, ws = settings, workspace
    if will_probe(ws, target):
        # The target's probe (a start of its Python) runs while git reads the pins and the checkout; its
        # error, if any, is raised where observe_target asks for it, after theirs.
        target.probe_ahead(runner)
    # Pins first: a bad commit, ref or pin file stops setup before anything else is looked at.
    pins = resolve(PinInputs(s, ws, runner, target, dry_run))
    tools_cache = StateFiles(ws.state).tool_versions
    toolchain, triton, llvm, learnt = _observe_sources(s, ws, runner, pins, tools_cache)
    offline = plan_offline(s.offline, s.backend, pins.layout)
    projects = _kept_projects(triton, pins.layout.llvm_projects)
    era = llvm_era(projects, pins.layout.version or pins.triton_version, s.backend)
    folders = _llvm_folders(ws, llvm, llvm_build_key(pins.llvm_commit, s.llvm_build_type, era, toolchain))
    target_facts = observe_target(ws, target, runner, setup_dir_of(pins, triton.path), pins.layout.build_requires)
    check_python_bounds(pins, target_facts)
    check_build_type(pins, s.build_type)
    facts = SetupFacts(
        workspace=ws,
        settings=s,
        dry_run=dry_run,
        pins=pins,
        toolchain=toolchain,
        tools_cache_present=tools_cache.is_file(),
        resources=detect(),
        remote_env=tuple(remote_env(s.ccache_remote, toolchain.ccache, ws.root).items()),
        environment=ambient(COMPILER_ENV + TRITON_USER_ENV),
        offline=offline,
        target=target_facts,
        triton=triton,
        llvm=llvm,
        llvm_projects=projects,
        llvm_folders=folders,
        records=Records(ws.state).load_all(RECORDED_STEPS),
        learnt=learnt,
        base_path=os.environ.get("PATH", ""),
        ignored_env=ignored_variables(offline),
        llvm_cache=read_llvm_cache(folders),
        resolve=resolve_path,
        tool_env=ambient(TOOL_ENTRIES),
        distcc=distcc.observe(s, toolchain.ccache is not None),
        home=os.environ.get("HOME", ""),
    )
    return refresh_triton_files(facts)


def _observe_sources(
    settings: Settings, workspace: Workspace, runner: Runner, pins: Pins, tools_cache: Path
) -> tuple[Toolchain, CheckoutFacts, LlvmFacts, Learnt | None]:
    """The toolchain, the Triton checkout and where LLVM comes from (with what --llvm auto learnt), the
    llvm-project checkout looked at meanwhile when LLVM is built from source."""
    s, ws = settings, workspace
    with ThreadPoolExecutor(max_workers=1) as pool:
        # llvm-project's check for local changes (lstat of ~170,000 files) runs while the rest is
        # gathered; its errors are raised below, after the Triton checkout's, as before.
        llvm_checkout = (
            pool.submit(observe_checkout, s, ws, runner, "llvm-project", pins.llvm_url, pins.llvm_commit)
            if isinstance(s.llvm_source, LlvmFromSource)
            else None
        )
        toolchain = detect_toolchain(
            runner,
            use_lld=s.lld,
            use_ccache=s.ccache,
            cache_file=tools_cache if tools_cache.is_file() else None,
            cmake_minimum=pins.layout.cmake_minimum,
        )
        triton = observe_checkout(s, ws, runner, "triton", pins.triton_url, pins.triton_commit)
        observed = llvm_source.observe(
            s,
            pins,
            llvm_info_text(pins.layout.llvm_info, triton.path, kept=triton.kept),
            runner,
            state=ws.state if ws.state.is_dir() else None,
        )
        llvm: LlvmFacts
        match observed.use:
            case SourceBuild() as build:  # --llvm source, or what auto decided
                llvm = LlvmCheckout(
                    llvm_checkout.result()
                    if llvm_checkout is not None
                    else observe_checkout(s, ws, runner, "llvm-project", pins.llvm_url, pins.llvm_commit),
                    build,
                )
            case PrebuiltPackage() | UserTree() as given:
                llvm = given
    return toolchain, triton, llvm, observed.learnt


def _llvm_folders(ws: Workspace, llvm: LlvmFacts, key: str) -> llvm_builds.LlvmFolders:
    """What is on disk for the LLVM setup uses: for a source build, this workspace's folder of its build key
    (or the link in its place) and other workspaces' builds of that key; else the package's, or your tree."""
    match llvm:
        case LlvmCheckout(checkout=checkout):
            return llvm_builds.observe(ws.llvm_builds / key, checkout.path)
        case PrebuiltPackage() | UserTree():
            return llvm_steps.observe_folders(ws.llvm_builds, llvm)


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


def refresh_target(facts: SetupFacts, runner: Runner, target: Target) -> SetupFacts:
    """The target environment read again (after the venv was created, or packages were installed)."""
    found = observe_target(facts.workspace, target, runner, facts.setup_dir, facts.pins.layout.build_requires)
    return dataclasses.replace(facts, target=found)


def refresh_triton_files(facts: SetupFacts) -> SetupFacts:
    """The Triton checkout's files read again (after the checkout moved, or setup.py built)."""
    python = facts.target.python
    folder = setup_py_build_folder(facts.setup_dir, python.version) if python is not None else None
    return dataclasses.replace(
        facts,
        setup_files=install.setup_files_digest(facts.setup_dir),
        triton_built=bool(triton_cmake_dirs(facts.setup_dir)),
        triton_cache=read_cache(folder) if folder is not None else None,
    )


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
