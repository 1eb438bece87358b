"""What setup's steps are made from, pure: the recipe's inputs drawn from the facts (`preset_inputs`), one
job sizing for both builds, and the inputs the LLVM steps and triton-install are fingerprinted by.

The variables that change how fast a build runs, never what it produces (VOLATILE), are kept out of
every fingerprint (`stable`): a different --jobs rebuilds nothing. The plan (bootstrap.pipeline.setup.plan)
decides each step from these inputs; `tritondev build` and the LLVM build of `bisect llvm` (through
bootstrap.pipeline.setup.api) fingerprint theirs by the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bootstrap.pipeline.built.records import fingerprint
from bootstrap.pipeline.host.jobs import Jobs, size_for_settings
from bootstrap.pipeline.recipe.era import llvm_era
from bootstrap.pipeline.recipe.inputs import Paths, PresetInputs
from bootstrap.pipeline.recipe.presets import Presets
from bootstrap.pipeline.recipe.triton import downloaded_pybind11
from bootstrap.pipeline.setup.checkout_facts import CheckoutFacts
from bootstrap.pipeline.setup.facts import COMPILER_ENV, SetupFacts

# Variables whose value changes how fast a build runs, never what it produces: kept out of
# fingerprints so that a different --jobs (or a machine with less free memory) rebuilds nothing.
VOLATILE = {"MAX_JOBS", "TRITON_PARALLEL_LINK_JOBS", "LLVM_PARALLEL_LINK_JOBS", "LLVM_PARALLEL_TABLEGEN_JOBS", "PATH"}


def stable(items: Sequence[tuple[str, str]]) -> dict[str, str]:
    """A preset's variables without the volatile ones (for fingerprints)."""
    return {k: v for k, v in items if k not in VOLATILE}


def size_for(facts: SetupFacts) -> Jobs:
    """One sizing for both builds, by the hungrier build type of the two; with distcc, the compiles
    from the slots of its hosts (links and tablegen still from this machine)."""
    slots = facts.distcc.hosts.slots if facts.distcc is not None else None
    return size_for_settings(facts.settings, facts.resources, distcc_slots=slots)


def target_bin(facts: SetupFacts) -> Path | None:
    """The target environment's scripts folder when it is a venv (or conda env), else None: a system
    Python's bin folder is not put first on PATH."""
    target = facts.target
    if target.python is not None:
        return target.python.scripts if target.python.is_venv else None
    return target.venv / "bin" if target.venv is not None else None


def preset_inputs(facts: SetupFacts, jobs: Jobs, llvm_build: Path, llvm_source: Path) -> PresetInputs:
    s, pins, ws = facts.settings, facts.pins, facts.workspace
    version = pins.layout.version or pins.triton_version
    python = facts.target.python
    return PresetInputs(
        paths=Paths(ws.root, facts.triton.path, llvm_source, llvm_build, facts.target.executable, ws.triton_home),
        setup_py_dir=pins.layout.setup_py_dir,
        build_requires=pins.layout.build_requires,
        llvm_commit=pins.llvm_commit,
        build_type=s.build_type,
        llvm_build_type=s.llvm_build_type,
        era=llvm_era(facts.llvm_projects, version, s.backend),
        toolchain=facts.toolchain,
        jobs=jobs,
        offline=facts.offline,
        sanitize=s.sanitize,
        setup_args=pins.layout.setup_args,
        triton_version=f"{version}+git{facts.triton.head[:8]}" if version and facts.triton.head else version,
        target_bin=target_bin(facts),
        base_path=facts.base_path,
        python_include=python.include if python else None,
        site_packages=python.purelib if python else None,
        user_cmake_args=facts.environment.get("TRITON_APPEND_CMAKE_ARGS"),
        pybind11_include=downloaded_pybind11(pins.layout.setup_args.pybind11_version, facts.environment, facts.home),
        distcc=facts.distcc is not None,
    )


def llvm_inputs(facts: SetupFacts, presets: Presets, checkout: CheckoutFacts) -> tuple[dict[str, Any], dict[str, Any]]:
    """(configure inputs, build inputs): no paths, so a build made elsewhere with them is the same build."""
    tc = facts.toolchain
    configure = {
        "key": presets.llvm_key,
        "cmake": stable(presets.llvm_cache),
        "cmake_version": tc.cmake.version,
        "ccache": tc.ccache.version if tc.ccache else None,
        "environment": {k: v for k, v in facts.environment.items() if k in COMPILER_ENV},
    }
    build = {
        "commit": facts.pins.llvm_commit,
        "head": checkout.head,
        "edits": checkout.edits,
        "ninja": tc.ninja.version,
        "configure": fingerprint(configure, {}),
    }
    return configure, build


def install_inputs(facts: SetupFacts, presets: Presets) -> dict[str, Any]:
    target, tc = facts.target, facts.toolchain
    return {
        "python": str(target.executable),
        "version": target.python.version if target.python else None,
        "triton_commit": facts.pins.triton_commit,
        "head": facts.triton.head,
        "edits": facts.triton.edits,
        "setup_files": facts.setup_files,
        "env": stable(presets.pip_install.env),
        "environment": dict(facts.environment),
        "toolchain": tc.identity(),
        "ccache": tc.ccache is not None,
    }
