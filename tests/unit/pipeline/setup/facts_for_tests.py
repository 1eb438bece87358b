"""Hand-made setup facts for the plan's unit tests: the three Triton layout eras of the test world
(tests/world/README.md), a workspace at /ws, and what a finished run leaves behind."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import PlannedCommand, Runner
from bootstrap.core.settings.settings_table import Settings
from bootstrap.core.target.interpreter import WORKSPACE_VENV, Target, TargetPython
from bootstrap.git.checkouts import CheckoutReport, ensure_checkout
from bootstrap.git.layout import TritonLayout
from bootstrap.git.pinned import Pins
from bootstrap.git.setup_py import SYSPATH_ALWAYS, SYSPATH_FROM_ENV, SYSPATH_NEVER, SetupPyArgs
from bootstrap.kernels.verify import Check
from bootstrap.pipeline.built.records import StepRecord
from bootstrap.pipeline.host.jobs import GIB, Resources
from bootstrap.pipeline.host.toolchain import Tool, Toolchain
from bootstrap.pipeline.llvm.builds import LlvmFolders, LlvmSite
from bootstrap.pipeline.recipe.era import llvm_era
from bootstrap.pipeline.recipe.llvm import llvm_build_key
from bootstrap.pipeline.setup.checkout_facts import CheckoutFacts, history_of
from bootstrap.pipeline.setup.facts import LlvmCheckout, SetupFacts
from bootstrap.pipeline.setup.plan import Record, SetupPlan
from bootstrap.pipeline.setup.report import KernelCheck, SetupReport
from bootstrap.pipeline.setup.run import drive
from bootstrap.pipeline.setup.target_facts import TargetFacts

WS = Path("/ws")
TRITON = "d0210c3edb46fe315ff281b673c8b8fcf0e4225f"
LLVM = "2f82c226822b89663e2746741b8fe76e1ff54ac9"
OTHER_HEAD = "1" * 40
URL = "https://git.example/{name}.git"
PYTHON = WS / "venv" / "bin" / "python"
SITE = WS / "venv" / "lib" / "python3.11" / "site-packages"
PYBIND = ("setuptools>=40.8.0", "wheel", "cmake>=3.18", "ninja>=1.11.1", "pybind11>=2.13.1")
NANOBIND = ("setuptools>=40.8.0", "cmake>=3.20,<4.0", "ninja>=1.11.1", "nanobind==2.10.2", "wheel", "lit")

PYBIND11_VARS = ("pybind11_INCLUDE_DIR", "pybind11_DIR")
# The layout eras of the test world: python/setup.py + llvm-hash.txt + pybind11 (no -DLLVM_SYSPATH);
# root setup.py + llvm-hash.txt, downloads in setup.py (-DLLVM_SYSPATH always); the same with the
# downloads in CMake; root setup.py + cmake/llvm-info.json + nanobind.
ERAS = {
    "python-dir": TritonLayout(
        "python",
        "cmake/llvm-hash.txt",
        LLVM,
        "llvm/llvm-project",
        "pybind11",
        PYBIND,
        False,
        "3.3.0",
        None,
        (3, 18),
        setup_args=SetupPyArgs(
            SYSPATH_NEVER,
            True,
            False,
            False,
            False,
            bindings=PYBIND11_VARS,
            build_dir_env=False,
            downloads_in_cmake=False,
            links_compile_commands=False,
            jobserver_skips_jobs=False,
        ),
    ),
    "root-setup": TritonLayout(
        ".",
        "cmake/llvm-hash.txt",
        LLVM,
        "llvm/llvm-project",
        "pybind11",
        PYBIND,
        True,
        "3.6.0",
        ("mlir", "llvm", "lld"),
        (3, 20),
        setup_args=SetupPyArgs(
            SYSPATH_ALWAYS,
            True,
            True,
            False,
            False,
            bindings=PYBIND11_VARS,
            downloads_in_cmake=False,
            jobserver_skips_jobs=False,
        ),
    ),
    "root-hash": TritonLayout(
        ".",
        "cmake/llvm-hash.txt",
        LLVM,
        "llvm/llvm-project",
        "pybind11",
        PYBIND,
        True,
        "3.7.0",
        ("mlir", "llvm", "lld"),
        (3, 20),
        setup_args=SetupPyArgs(
            SYSPATH_FROM_ENV,
            False,
            True,
            True,
            False,
            bindings=PYBIND11_VARS,
            gsan_cuda_path=True,
            jobserver_skips_jobs=False,
        ),
    ),
    "root-json": TritonLayout(
        ".",
        "cmake/llvm-info.json",
        LLVM,
        "llvm/llvm-project",
        "nanobind",
        NANOBIND,
        True,
        "3.8.0",
        ("mlir", "llvm", "lld"),
        (3, 20),
        setup_args=SetupPyArgs(),
    ),
}


# Eras before 3.3, for the tests of what changed then (not in ERAS, which the plan's tests run over):
# python/setup.py with -DPYTHON_INCLUDE_DIRS, `-DCMAKE_CXX_COMPILER_LAUNCHER=ccache` of its own, no link
# pool; 3.0/3.1 download pybind11 and read no TRITON_APPEND_CMAKE_ARGS (python/setup.py @ 107465b8, dbc771e8).
_OLD = SetupPyArgs(
    SYSPATH_NEVER,
    True,
    False,
    False,
    False,
    python_include="PYTHON_INCLUDE_DIRS",
    bindings=("PYBIND11_INCLUDE_DIR",),
    build_dir_env=False,
    downloads_in_cmake=False,
    ptxas_blackwell=False,
    cxx_launcher_only=True,
    link_jobs=False,
    links_compile_commands=False,
    jobserver_skips_jobs=False,
)
OLD_ERAS = {
    "python-dir-3.0": TritonLayout(
        "python",
        "cmake/llvm-hash.txt",
        LLVM,
        "llvm/llvm-project",
        "pybind11",
        PYBIND[:4],
        False,
        "3.0.0",
        None,
        (3, 18),
        setup_args=dataclasses.replace(_OLD, offline_flag=False, append_cmake_args=False, pybind11_version="2.11.1"),
    ),
    "python-dir-3.2": TritonLayout(
        "python",
        "cmake/llvm-hash.txt",
        LLVM,
        "llvm/llvm-project",
        "pybind11",
        PYBIND,
        False,
        "3.2.0",
        None,
        (3, 18),
        setup_args=_OLD,
    ),
}


def toolchain() -> Toolchain:
    return Toolchain(
        compiler="clang",
        cc=Tool("clang", "/usr/bin/clang", "14.0.6"),
        cxx=Tool("clang++", "/usr/bin/clang++", "14.0.6"),
        linker="lld",
        lld=Tool("ld.lld", "/usr/bin/ld.lld", "14.0.6"),
        ccache=Tool("ccache", "/usr/bin/ccache", "4.7.5"),
        cmake=Tool("cmake", "/usr/bin/cmake", "3.25.1"),
        ninja=Tool("ninja", "/usr/bin/ninja", "1.11.1"),
    )


def target_python() -> TargetPython:
    return TargetPython(
        PYTHON,
        WORKSPACE_VENV,
        "3.11.7",
        WS / "venv",
        Path("/usr"),
        SITE,
        SITE,
        Path("/usr/include/python3.11"),
        WS / "venv" / "bin",
    )


def clone_commands(name: str, commit: str) -> tuple[PlannedCommand, ...]:
    """What ensure_checkout runs for a new clone, from its own dry pass (a new clone needs no probe)."""
    runner = Runner(dry_run=True, silent=True)
    ensure_checkout(name, URL.format(name=name), commit, WS / "src" / name, runner, history=history_of(name))
    return tuple(runner.history)


def checkout(name: str, commit: str, *, cloned: bool = True) -> CheckoutFacts:
    path = WS / "src" / name
    if cloned:
        return CheckoutFacts(name, CheckoutReport(path, commit, commit, (), (), "up-to-date"), ())
    return CheckoutFacts(name, CheckoutReport(path, commit, "", (), (), "cloned"), clone_commands(name, commit))


def llvm_key(layout: TritonLayout, llvm_build_type: str = "Release") -> str:
    era = llvm_era(layout.llvm_projects, layout.version, "nvidia")
    return llvm_build_key(LLVM, llvm_build_type, era, toolchain())


def fresh(era: str, allow_dirty: bool = False) -> SetupFacts:
    """A workspace that does not exist yet: no venv, no checkouts, no builds, no records."""
    layout = {**ERAS, **OLD_ERAS}[era]
    pins = Pins(
        None,
        "not used: the Triton commit was given",
        TRITON,
        "option --triton-commit",
        layout.version,
        LLVM,
        URL.format(name="llvm-project"),
        layout,
        triton_url=URL.format(name="triton"),
    )
    s = Settings(workspace=WS, jobs=2, link_jobs=2, allow_dirty=allow_dirty)
    target = TargetFacts(PYTHON, WORKSPACE_VENV, WS / "venv", True, False, "/usr/bin/python3", None)
    return SetupFacts(
        workspace=Workspace(WS),
        settings=s,
        dry_run=False,
        pins=pins,
        toolchain=toolchain(),
        tools_cache_present=False,
        resources=Resources(2, 24 * GIB),
        remote_env=(),
        environment={},
        offline=None,
        target=target,
        triton=checkout("triton", TRITON, cloned=False),
        llvm=LlvmCheckout(checkout("llvm-project", LLVM, cloned=False)),
        llvm_projects=layout.llvm_projects,
        llvm_folders=LlvmFolders(WS / "build" / "llvm" / llvm_key(layout, s.llvm_build_type), None, None),
        records={},
    )


def in_place(facts: SetupFacts) -> SetupFacts:
    """The facts once everything exists (venv, checkouts at the pins, installed), before records count."""
    target = TargetFacts(
        PYTHON,
        WORKSPACE_VENV,
        WS / "venv",
        False,
        False,
        "/usr/bin/python3",
        target_python(),
        listing="listing-after-setup",
        requirements_present=True,
        own_install_present=True,
    )
    return dataclasses.replace(
        facts,
        target=target,
        triton=checkout("triton", TRITON),
        llvm=LlvmCheckout(checkout("llvm-project", LLVM)),
        setup_files="setup-files",
        triton_built=True,
        tools_cache_present=True,
    )


def finished(facts: SetupFacts, plan: SetupPlan) -> SetupFacts:
    """`facts` with the records a run of `plan` leaves: step records, the purge's, the LLVM stamp."""
    records = dict(facts.records)
    for step in plan.steps:
        if step.record == Record.STEPS:
            records[step.name] = StepRecord(
                step.fingerprint, step.inputs, {d: plan.step(d).fingerprint for d in step.after}
            )
    purge = plan.step("purge")
    records["purge"] = StepRecord(purge.fingerprint, purge.inputs, {})
    stamp = {
        "configure_fingerprint": plan.step("llvm-configure").fingerprint,
        "build_fingerprint": plan.step("llvm-build").fingerprint,
        "source": str(plan.llvm.source),
    }
    folders = facts.llvm_folders
    if plan.llvm.reused_from is None:
        folders = dataclasses.replace(folders, own=LlvmSite(plan.llvm.build, plan.llvm.source, stamp, True, True))
    return dataclasses.replace(facts, records=records, llvm_folders=folders)


def dry_drive(facts: SetupFacts) -> SetupReport:
    """Setup's driver over `facts` under --dry-run: every step through the dry-run runner, nothing written."""

    def no_kernel_check(tools: Check | None) -> KernelCheck:
        raise AssertionError("a dry run runs no kernel check")

    facts = dataclasses.replace(facts, dry_run=True)
    return drive(
        facts,
        Runner(dry_run=True, silent=True),
        Target(facts.target.executable, facts.target.origin),
        None,
        json=True,
        check_kernels=no_kernel_check,
    )
