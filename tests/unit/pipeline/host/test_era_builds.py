"""What each era's setup.py is given and passes on, against what upstream does (docs/test-world.md,
conformance table): the default build type, Release, the ccache launcher before 3.3, the link pool,
pybind11 downloaded by 3.0/3.1, and the options that stick in the build folder."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import UsageError
from bootstrap.git.setup_py import read_setup_py_args
from bootstrap.pipeline.host.fresh_cache import CacheView, Input, decide
from bootstrap.pipeline.host.triton_configure import (
    appended_build_type,
    setup_py_build_type,
    triton_configure_of,
    triton_expectations,
)
from bootstrap.pipeline.setup.facts import SetupFacts, check_build_type
from bootstrap.pipeline.setup.plan import plan_setup
from tests.unit.pipeline.setup.facts_for_tests import finished, fresh, in_place


def with_settings(facts: SetupFacts, **changes: object) -> SetupFacts:
    return dataclasses.replace(facts, settings=dataclasses.replace(facts.settings, **changes))  # type: ignore[arg-type]


def install_env(facts: SetupFacts) -> dict[str, str]:
    return dict(plan_setup(facts).presets.pip_install.env)


@pytest.mark.parametrize("era", ["python-dir-3.0", "python-dir-3.2", "python-dir", "root-json"])
def test_the_default_build_is_what_pip_install_e_builds(era: str) -> None:
    """No DEBUG, no REL_WITH_DEB_INFO: setup.py's get_build_type() default, TritonRelBuildWithAsserts
    (-O2 -g, no NDEBUG; setup.py @ 6d2e38bf l.125-136), for the install and the hand preset alike."""
    plan = plan_setup(fresh(era))
    env = dict(plan.presets.pip_install.env)
    assert not {"DEBUG", "REL_WITH_DEB_INFO", "TRITON_APPEND_CMAKE_ARGS"} & set(env)
    assert {"DEBUG", "REL_WITH_DEB_INFO"} <= set(plan.presets.pip_install.unset)  # not from the user's shell
    assert setup_py_build_type(env) == "TritonRelBuildWithAsserts"
    assert dict(plan.presets.triton_cache)["CMAKE_BUILD_TYPE"] == "TritonRelBuildWithAsserts"


def test_release_goes_through_triton_append_cmake_args_after_ours_and_before_the_users() -> None:
    facts = with_settings(fresh("python-dir-3.2"), build_type="Release")
    env = install_env(facts)
    assert env["TRITON_APPEND_CMAKE_ARGS"] == "-DCMAKE_BUILD_TYPE=Release"
    users = dataclasses.replace(facts, environment={"TRITON_APPEND_CMAKE_ARGS": "-DFOO='a b'"})
    assert install_env(users)["TRITON_APPEND_CMAKE_ARGS"] == "-DCMAKE_BUILD_TYPE=Release -DFOO='a b'"
    theirs = dataclasses.replace(facts, environment={"TRITON_APPEND_CMAKE_ARGS": "-DCMAKE_BUILD_TYPE=Debug"})
    assert setup_py_build_type(install_env(theirs)) == "Debug"  # the user's, later on the line, wins


def test_release_is_refused_where_setup_py_reads_no_triton_append_cmake_args() -> None:
    facts = fresh("python-dir-3.0")
    with pytest.raises(UsageError) as caught:
        check_build_type(facts.pins, "Release")
    assert "3.0.0" in caught.value.message and "TRITON_APPEND_CMAKE_ARGS" in caught.value.message
    assert "--build-type TritonRelBuildWithAsserts" in (caught.value.fix or "")
    check_build_type(fresh("python-dir-3.2").pins, "Release")
    check_build_type(facts.pins, "Debug")


@pytest.mark.parametrize(("arguments", "build_type"), [
    ("-DCMAKE_BUILD_TYPE=Release", "Release"), ("-DCMAKE_BUILD_TYPE:STRING=Debug -DX=1", "Debug"),
    ("-D CMAKE_BUILD_TYPE=MinSizeRel", "MinSizeRel"), ("-DCMAKE_BUILD_TYPE=A -DCMAKE_BUILD_TYPE=B", "B"),
    ("-DCMAKE_BUILD_TYPES=X", None), ("'-DCMAKE_BUILD_TYPE=Rel With'", "Rel With"), ("'unclosed", None), ("", None),
])  # fmt: skip
def test_the_build_type_triton_append_cmake_args_sets(arguments: str, build_type: str | None) -> None:
    assert appended_build_type(arguments) == build_type
    expected = build_type or "TritonRelBuildWithAsserts"
    assert setup_py_build_type({"TRITON_APPEND_CMAKE_ARGS": arguments}) == expected
    # 3.0/3.1's setup.py does not read the variable.
    assert setup_py_build_type({"TRITON_APPEND_CMAKE_ARGS": arguments}, appends=False) == "TritonRelBuildWithAsserts"


@given(st.lists(st.text(min_size=0, max_size=12), max_size=6), st.sampled_from(["Debug", "Release", "x y"]))
def test_appended_build_type_reads_any_words_and_the_last_definition_wins(words: list[str], last: str) -> None:
    text = shlex.join(words)
    appended_build_type(text)  # never raises, whatever the user's variable holds
    assert appended_build_type(f"{text} -DCMAKE_BUILD_TYPE={shlex.quote(last)}") == last


def _cache_after(facts: SetupFacts, **entries: str) -> CacheView:
    """What 3.0-3.2's configure leaves: the C++ launcher setup.py passed by its bare name (resolved as
    CMake's cache reader resolves it: here the identity), no C launcher, no TRITON_BUILD_WITH_CCACHE."""
    folder = facts.setup_dir / "build" / "cmake.linux-x86_64-cpython-3.11"
    values = {
        "CMAKE_HOME_DIRECTORY": str(facts.triton.path),
        "CMAKE_CXX_COMPILER_LAUNCHER": "ccache",
        "CMAKE_SHARED_LINKER_FLAGS": "-fuse-ld=lld",
        "CMAKE_MODULE_LINKER_FLAGS": "-fuse-ld=lld",
        "CMAKE_EXE_LINKER_FLAGS": "-fuse-ld=lld",
        "CMAKE_BUILD_TYPE": "TritonRelBuildWithAsserts",
        "TRITON_BUILD_PROTON": "ON",
    }
    return CacheView(folder, {**values, **entries})


@pytest.mark.parametrize("era", ["python-dir-3.0", "python-dir-3.2"])
def test_before_3_3_the_cxx_launcher_setup_py_passes_is_up_to_date(era: str) -> None:
    """python/setup.py @ 107465b8 l.414-417, @ dbc771e8 l.465-468: `-DCMAKE_CXX_COMPILER_LAUNCHER=ccache`
    only; no CMake file sets the C launcher. The folder is reused, until ccache is turned off."""
    done = finished(in_place(fresh(era)), plan_setup(in_place(fresh(era))))
    again = dataclasses.replace(done, triton_cache=_cache_after(done))
    assert not plan_setup(again).step("triton-install").runs
    no_ccache = dataclasses.replace(again, toolchain=dataclasses.replace(done.toolchain, ccache=None))
    step = plan_setup(no_ccache).step("triton-install")
    assert step.runs and step.fresh is not None
    assert step.fresh.decision.reason == "compiler launcher changed: fresh CMake cache"
    assert [c.describe() for c in step.fresh.decision.changes] == ["CMAKE_CXX_COMPILER_LAUNCHER: ccache -> (unset)"]


def test_from_3_3_both_launchers_are_expected() -> None:
    env = {"TRITON_BUILD_WITH_CCACHE": "1", "LLVM_SYSPATH": "/llvm"}
    new = triton_configure_of(env, Path("/src"), "/usr/bin/ccache", "nvidia;amd", str)
    cached = CacheView(Path("/b"), {"CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache"})
    assert decide(triton_expectations(new), cached).inputs == (Input.LAUNCHER,)  # no C launcher: stale
    old = triton_configure_of(env, Path("/src"), "/usr/bin/ccache", "nvidia;amd", str, cxx_launcher_only=True)
    bare = CacheView(Path("/b"), {"CMAKE_CXX_COMPILER_LAUNCHER": "ccache"})
    assert (old.ccache, decide(triton_expectations(old), bare).fresh) == ("ccache", False)
    # A 3.3 folder (both launchers) configured by a 3.2 setup.py: its C launcher would stay.
    both = CacheView(Path("/b"), {"CMAKE_CXX_COMPILER_LAUNCHER": "ccache", "CMAKE_C_COMPILER_LAUNCHER": "ccache"})
    assert decide(triton_expectations(old), both).inputs == (Input.LAUNCHER,)


@pytest.mark.parametrize(
    ("era", "pool"), [("python-dir-3.0", False), ("python-dir-3.2", False), ("python-dir", True), ("root-json", True)]
)
def test_the_link_pool_only_where_cmake_has_one(era: str, pool: bool) -> None:
    """TRITON_PARALLEL_LINK_JOBS came with #5212 (3.3): before, nothing reads it."""
    plan = plan_setup(fresh(era))
    assert ("TRITON_PARALLEL_LINK_JOBS" in dict(plan.presets.pip_install.env)) == pool
    assert ("TRITON_PARALLEL_LINK_JOBS" in dict(plan.presets.triton_cache)) == pool
    launchers = {k for k, _ in plan.presets.triton_cache if k.endswith("_COMPILER_LAUNCHER")}
    assert launchers == (
        {"CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER"} if pool else {"CMAKE_CXX_COMPILER_LAUNCHER"}
    )
    assert ("TRITON_BUILD_WITH_CCACHE" in dict(plan.presets.triton_cache)) == pool


def test_the_hand_preset_of_3_0_names_the_pybind11_setup_py_downloads() -> None:
    """python/setup.py @ 107465b8 l.126-133, 355: pybind11-<cmake/pybind11-version.txt> downloaded into
    $HOME/.triton/pybind11 (no TRITON_HOME before 3.2), or PYBIND11_SYSPATH."""
    facts = dataclasses.replace(in_place(fresh("python-dir-3.0")), home="/home/u")
    cache = dict(plan_setup(facts).presets.triton_cache)
    assert cache["PYBIND11_INCLUDE_DIR"] == "/home/u/.triton/pybind11/pybind11-2.11.1/include"
    assert "PYTHON_INCLUDE_DIRS" in cache and "Python3_INCLUDE_DIR" not in cache
    own = dataclasses.replace(facts, environment={"PYBIND11_SYSPATH": "/opt/pybind11"})
    assert dict(plan_setup(own).presets.triton_cache)["PYBIND11_INCLUDE_DIR"] == "/opt/pybind11/include"
    later = dict(plan_setup(dataclasses.replace(in_place(fresh("python-dir-3.2")), home="/u")).presets.triton_cache)
    assert later["PYBIND11_INCLUDE_DIR"].endswith("site-packages/pybind11/include")


@pytest.mark.parametrize(("cached", "env", "changed"), [
    ({"TRITON_BUILD_PROTON": "OFF"}, {}, True),  # a one-off TRITON_BUILD_PROTON=0 stays without this rule
    ({"TRITON_BUILD_PROTON": "OFF"}, {"TRITON_BUILD_PROTON": "0"}, False),
    ({"TRITON_BUILD_PROTON": "ON"}, {}, False),
    ({}, {}, False),  # an era without the entry
    ({"TRITON_STABLE_ABI": "1"}, {}, True),
    ({"TRITON_STABLE_ABI": "ON"}, {"TRITON_STABLE_ABI": "1"}, False),
    ({"TRITON_ROCPROFILER_SDK_LIB_PATH": "/opt/rocm/lib"}, {}, True),
])  # fmt: skip
def test_options_setup_py_passes_only_when_set_do_not_stick(
    cached: dict[str, str], env: dict[str, str], changed: bool
) -> None:
    """setup.py @ 1d2da15d l.350-370 passes TRITON_BUILD_PROTON, TRITON_STABLE_ABI and the ROCprofiler
    paths only when set; CMake keeps what an earlier configure left (CMakeLists.txt @ 6d2e38bf l.21)."""
    wanted = triton_configure_of({"LLVM_SYSPATH": "/llvm", **env}, Path("/src"), None, "nvidia;amd", str)
    assert decide(triton_expectations(wanted), CacheView(Path("/b"), cached)).fresh == changed


SETUP_30 = """
    pybind11_version_path = os.path.join(get_base_dir(), "cmake", "pybind11-version.txt")
        if check_env_flag("TRITON_BUILD_WITH_CCACHE"):
            cmake_args += [
                "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
            ]
"""


def test_the_era_facts_are_read_from_the_files_not_the_version() -> None:
    files = {"python/setup.py": SETUP_30, "cmake/pybind11-version.txt": "2.11.1\n", "CMakeLists.txt": "project(t)\n"}
    old = read_setup_py_args(files.get, "python")
    assert (old.cxx_launcher_only, old.link_jobs, old.append_cmake_args, old.pybind11_version) == (
        True,
        False,
        False,
        "2.11.1",
    )
    assert (old.gsan_cuda_path, old.links_compile_commands, old.jobserver_skips_jobs) == (False, False, False)
    files.update({"cmake/pybind11-version.txt": "2.11.1; rm -rf /\n"})
    assert read_setup_py_args(files.get, "python").pybind11_version is None  # only a version is a version
    new = {
        "setup.py": 'cmake_args_append = os.getenv("TRITON_APPEND_CMAKE_ARGS")\n'
        'update_symlink(Path(self.base_dir) / "compile_commands.json", x)\n'
        'elif "--jobserver-auth=fifo:" not in os.environ.get("MAKEFLAGS", ""):\n',
        "CMakeLists.txt": 'set(CMAKE_C_COMPILER_LAUNCHER "${CCACHE_PROGRAM}"\nset(TRITON_PARALLEL_LINK_JOBS "")\n',
        "third_party/nvidia/CMakeLists.txt": 'set(X\n      "--cuda-path=${CMAKE_CURRENT_SOURCE_DIR}/backend")\n',
    }
    args = read_setup_py_args(new.get, ".")
    assert (args.cxx_launcher_only, args.link_jobs, args.append_cmake_args, args.pybind11_version) == (
        False,
        True,
        True,
        None,
    )
    assert (args.gsan_cuda_path, args.links_compile_commands, args.jobserver_skips_jobs) == (True, True, True)


@pytest.mark.parametrize(("era", "cleared"), [("root-json", True), ("root-hash", False), ("python-dir-3.0", False)])
def test_makeflags_is_kept_from_a_setup_py_that_skips_jobs_under_a_jobserver(era: str, cleared: bool) -> None:
    """setup.py @ 1d2da15d l.314-318 (#10996): no `-j MAX_JOBS` when MAKEFLAGS holds --jobserver-auth=fifo:."""
    install = plan_setup(fresh(era)).presets.pip_install
    assert ("MAKEFLAGS" in install.unset) == cleared and "MAX_JOBS" in dict(install.env)
